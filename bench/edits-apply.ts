import {
  DynamoDBClient,
  PutItemCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { attachUsageCounter, countDynamoUsage } from '../infra/local/dynamodb-usage.ts';
import type { HarnessInfo } from '../infra/local/harness-process.ts';
import { parseUnits } from './prices.ts';
import { median, type Spread, spread } from './stats.ts';

/** Every DynamoDB call of the measured requests (and of the plain UpdateItem) waits this long first. */
export const NETWORK_DELAY_MS = 10;

export interface Measured {
  ms: Spread;
  calls: number;
  roundTrips: number;
  readUnits: number;
  writeUnits: number;
}

export interface ApplyRow {
  items: number;
  apply: Measured;
  revert: Measured;
}

/** Unmeasured apply-and-revert rounds before each changeset size is measured. */
export const WARM_UP_ROUNDS = 1;

/**
 * Edits API figures under a realistic round trip (NETWORK_DELAY_MS added to every DynamoDB call,
 * here and in the plain UpdateItem they are compared with): a snapshot, and applying then
 * reverting changesets of 1, 10 and 100 updates.
 */
export async function measureEdits(harness: HarnessInfo, runs: number) {
  const business = harness.credentials.businesses[0];
  if (!business) throw new Error('no demo business');
  const owner = business.tokens.owner;
  const request = async (method: string, path: string, token: string, json?: unknown, delayed = false) => {
    const started = performance.now();
    const response = await fetch(`${harness.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(json === undefined ? {} : { 'content-type': 'application/json' }),
        ...(delayed ? { 'x-local-network-delay-ms': String(NETWORK_DELAY_MS) } : {}),
      },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const body = (await response.json()) as { data: Record<string, unknown> & { id: string } };
    const ms = performance.now() - started;
    if (response.status >= 300)
      throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(body)}`);
    return {
      body,
      ms,
      calls: Number(response.headers.get('x-local-dynamodb-calls')),
      roundTrips: Number(response.headers.get('x-local-dynamodb-round-trips')),
      ...parseUnits(response.headers.get('x-local-dynamodb-units')),
    };
  };
  type Sample = Awaited<ReturnType<typeof request>>;
  const summarise = (samples: Sample[]): Measured => ({
    ms: spread(samples.map((s) => s.ms)),
    calls: median(samples.map((s) => s.calls)),
    roundTrips: median(samples.map((s) => s.roundTrips)),
    readUnits: median(samples.map((s) => s.readUnits)),
    writeUnits: median(samples.map((s) => s.writeUnits)),
  });

  const faqs: string[] = [];
  for (let i = 0; i < 100; i++) {
    const { body } = await request(
      'POST',
      `/api/v1/agent/businesses/${business.id}/faqs`,
      harness.credentials.agent_key,
      { question: `Bench question ${i}?`, answer: 'initial' },
    );
    faqs.push(body.data.id);
  }
  const session = (await request('POST', '/api/v1/edits/sessions', owner, { business_id: business.id })).body
    .data.id;
  const snapshots: Sample[] = [];
  for (let i = 0; i < Math.max(5, runs); i++)
    snapshots.push(
      await request('GET', `/api/v1/edits/sessions/${session}/snapshot`, owner, undefined, true),
    );

  const plainUpdate = await plainUpdateMs(harness, Math.max(15, runs * 5));
  const rows: ApplyRow[] = [];
  let round = 0;
  for (const size of [1, 10, 100]) {
    const applied: Sample[] = [];
    const reverted: Sample[] = [];
    // The first round of each size is not counted: it warms what that size runs, in the emulator
    // (warmed in general by warm-emulator.ts first) and in the harness's functions. More rounds
    // only add items to the business's partitions, and did not steady the figures.
    for (let run = -WARM_UP_ROUNDS; run < runs; run++) {
      round++;
      const items = faqs.slice(0, size).map((id) => ({
        entity: 'faq',
        action: 'update',
        record_id: id,
        fields: { answer: `round ${round}` },
      }));
      const staged = (await request('POST', `/api/v1/edits/sessions/${session}/changesets`, owner, { items }))
        .body.data.id;
      const apply = await request('POST', `/api/v1/edits/changesets/${staged}/apply`, owner, undefined, true);
      const revert = await request(
        'POST',
        `/api/v1/edits/changesets/${staged}/revert`,
        owner,
        undefined,
        true,
      );
      for (const [sample, status] of [
        [apply, 'applied'],
        [revert, 'reverted'],
      ] as const) {
        const counts = sample.body.data.counts as Record<string, number>;
        if (counts[status] !== size) throw new Error(`${status} ${JSON.stringify(counts)} of ${size} items`);
      }
      if (run < 0) continue;
      applied.push(apply);
      reverted.push(revert);
    }
    rows.push({ items: size, apply: summarise(applied), revert: summarise(reverted) });
  }
  // After the rows, so that its own transactions do not warm the emulator for them.
  const emulatorTransaction = await emulatorTransactionMs(harness, Math.max(5, runs));
  return { snapshot: summarise(snapshots), plainUpdate, emulatorTransaction, rows };
}

/**
 * DynamoDB Local's own time for one full transaction (99 conditional updates, as 33 items of 3
 * actions fill one), with no delay added: it runs transactions one after another, so a 100-item
 * apply spends about three of these in the emulator alone, whatever the concurrency. Measured
 * last, after one unmeasured transaction of its own.
 */
async function emulatorTransactionMs(harness: HarnessInfo, samples: number): Promise<Spread> {
  const client = new DynamoDBClient({
    endpoint: harness.endpoints.dynamodb,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  const key = (i: number) => ({ pk: { S: 'BENCH#TRANSACTION' }, sk: { S: String(i) } });
  const ACTIONS = 99;
  for (let i = 0; i < ACTIONS; i++) {
    await client.send(
      new PutItemCommand({ TableName: harness.tableName, Item: { ...key(i), n: { N: '0' } } }),
    );
  }
  const times: number[] = [];
  for (let run = -1; run < samples; run++) {
    const started = performance.now();
    await client.send(
      new TransactWriteItemsCommand({
        TransactItems: Array.from({ length: ACTIONS }, (_, i) => ({
          Update: {
            TableName: harness.tableName,
            Key: key(i),
            UpdateExpression: 'SET n = :n',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':n': { N: String(run) } },
          },
        })),
      }),
    );
    if (run >= 0) times.push(performance.now() - started);
  }
  client.destroy();
  return spread(times);
}

/**
 * One UpdateItem on an existing item, from this process, against the same table, with the same
 * delay added by the same middleware as the harness's requests.
 */
async function plainUpdateMs(harness: HarnessInfo, samples: number): Promise<Spread> {
  const client = new DynamoDBClient({
    endpoint: harness.endpoints.dynamodb,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  attachUsageCounter(client);
  const Key = { pk: { S: 'BENCH' }, sk: { S: 'BASELINE' } };
  await client.send(new PutItemCommand({ TableName: harness.tableName, Item: { ...Key, n: { N: '0' } } }));
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    await countDynamoUsage(
      () =>
        client.send(
          new UpdateItemCommand({
            TableName: harness.tableName,
            Key,
            UpdateExpression: 'SET n = :n',
            ExpressionAttributeValues: { ':n': { N: String(i) } },
          }),
        ),
      { delayMs: NETWORK_DELAY_MS },
    );
    times.push(performance.now() - started);
  }
  client.destroy();
  return spread(times);
}
