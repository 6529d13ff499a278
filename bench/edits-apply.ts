import { DynamoDBClient, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { HarnessInfo } from '../infra/local/harness-process.ts';

export interface ApplyRow {
  items: number;
  applyMs: number;
  calls: number;
  ratio: number;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/**
 * Edits API figures: DynamoDB calls of a snapshot, and the time and calls of applying changesets
 * of 1, 10 and 100 updates, next to one plain UpdateItem against the same DynamoDB Local.
 */
export async function measureEdits(harness: HarnessInfo, runs: number) {
  const business = harness.credentials.businesses[0];
  if (!business) throw new Error('no demo business');
  const owner = business.tokens.owner;
  const request = async (method: string, path: string, token: string, json?: unknown) => {
    const response = await fetch(`${harness.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const body = (await response.json()) as { data: Record<string, unknown> & { id: string } };
    if (response.status >= 300)
      throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(body)}`);
    return { body, calls: Number(response.headers.get('x-local-dynamodb-calls')) };
  };

  const faqs: string[] = [];
  for (let i = 0; i < 100; i++) {
    const { body } = await request(
      'POST',
      `/api/v1/agent/businesses/${business.id}/faqs`,
      harness.credentials.agent_key,
      {
        question: `Bench question ${i}?`,
        answer: 'initial',
      },
    );
    faqs.push(body.data.id);
  }
  const session = (await request('POST', '/api/v1/edits/sessions', owner, { business_id: business.id })).body
    .data.id;
  const snapshot = await request('GET', `/api/v1/edits/sessions/${session}/snapshot`, owner);

  const baselineMs = await plainUpdateMs(harness, runs * 5);
  const rows: ApplyRow[] = [];
  let round = 0;
  for (const size of [1, 10, 100]) {
    const times: number[] = [];
    let calls = 0;
    for (let run = 0; run < runs; run++) {
      round++;
      const items = faqs.slice(0, size).map((id) => ({
        entity: 'faq',
        action: 'update',
        record_id: id,
        fields: { answer: `round ${round}` },
      }));
      const staged = (await request('POST', `/api/v1/edits/sessions/${session}/changesets`, owner, { items }))
        .body.data.id;
      const started = performance.now();
      const applied = await request('POST', `/api/v1/edits/changesets/${staged}/apply`, owner);
      times.push(performance.now() - started);
      calls = applied.calls;
    }
    const applyMs = median(times);
    rows.push({ items: size, applyMs, calls, ratio: applyMs / baselineMs });
  }
  return { snapshotCalls: snapshot.calls, baselineMs, rows };
}

/** Median time of one UpdateItem on an existing item, from this process, against the same table. */
async function plainUpdateMs(harness: HarnessInfo, samples: number): Promise<number> {
  const client = new DynamoDBClient({
    endpoint: harness.endpoints.dynamodb,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  const Key = { pk: { S: 'BENCH' }, sk: { S: 'BASELINE' } };
  await client.send(new PutItemCommand({ TableName: harness.tableName, Item: { ...Key, n: { N: '0' } } }));
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    await client.send(
      new UpdateItemCommand({
        TableName: harness.tableName,
        Key,
        UpdateExpression: 'SET n = :n',
        ExpressionAttributeValues: { ':n': { N: String(i) } },
      }),
    );
    times.push(performance.now() - started);
  }
  client.destroy();
  return median(times);
}
