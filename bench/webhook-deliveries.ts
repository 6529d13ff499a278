import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { progress } from '../infra/command-line.ts';
import type { HarnessInfo } from '../infra/local/harness-process.ts';
import { driveAgentWrites, historyIds, pause, type WriteLoad } from './agent-writes.ts';
import { SUSTAINED_WRITES_PER_SECOND, WRITES_PER_SECOND } from './change-events.ts';
import { met, quantile } from './stats.ts';

/**
 * How fast webhooks follow their writes on the local stack (docs/webhooks.md): a receiver on a
 * loopback port subscribed (through the API) to BUSINESSES businesses, agent writes at a rate for
 * DURATION_S, and from each event's `occurred_at` to the moment its delivery reached the receiver.
 * Then an outage: the receiver answers 503 for OUTAGE_S while writes go on, then 200 again, and the
 * bench counts how long after it came back every event had arrived (the retry schedule's first
 * waits, docs/webhooks.md 'Retries') and whether each business's events came in feed order. Lost
 * counts Change History entries of the businesses with no delivery; duplicated counts deliveries
 * answered 200 beyond the first of each id.
 */
export const BUSINESSES = 10;
export const DURATION_S = 30;
export const OUTAGE_S = 60;
/** The outage's write rate and length: writes through the outage and a little after. */
export const OUTAGE_WRITES_PER_SECOND = 5;
export const OUTAGE_WRITES_S = OUTAGE_S + 15;
/** How long to wait for the stragglers: past the retry schedule's first two waits (1 and 5 min, +20 %). */
const SETTLE_MS = 8 * 60_000;

export interface WebhookLatency {
  writesPerSecond: number;
  load: WriteLoad;
  delivered: { p50: number; p99: number; n: number };
  lost: number;
  duplicated: number;
}

export interface WebhookOutage {
  load: WriteLoad;
  events: number;
  /** From the receiver's recovery to the arrival of the last event it had missed. */
  caughtUpMs: number;
  /** Failed attempts the receiver answered 503. */
  refusedAttempts: number;
  lost: number;
  /** Businesses whose events arrived (first arrivals) out of their commit order. */
  outOfOrder: number;
}

interface Arrival {
  id: string;
  at: number;
  occurredAt: number;
  businessId: string;
  status: number;
}

/** A receiver that notes what arrives and answers with the status it is set to. */
async function receiver() {
  const arrivals: Arrival[] = [];
  let status = 200;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = Date.now();
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        data: { occurred_at?: string; business_id?: string };
      };
      arrivals.push({
        id: String(request.headers['webhook-id']),
        at,
        occurredAt: Date.parse(message.data.occurred_at ?? ''),
        businessId: String(message.data.business_id),
        status,
      });
      response.statusCode = status;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    answer: (next: number) => {
      status = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function arrange(harness: HarnessInfo, label: string) {
  Object.assign(process.env, harness.env, { POWERTOOLS_LOG_LEVEL: 'ERROR' });
  const [{ createBusiness }, { createAgentKey }] = await Promise.all([
    import('#lib/businesses/business-store.ts'),
    import('#lib/auth/agent-keys.ts'),
  ]);
  const businesses = await Promise.all(
    Array.from({ length: BUSINESSES }, (_, index) =>
      createBusiness({ name: `Webhooks bench ${label} ${index}`, createdBy: { type: 'user', id: 'bench' } }),
    ),
  );
  const businessIds = businesses.map(({ id }) => id);
  const { key } = await createAgentKey({
    name: 'webhooks-bench',
    businesses: businessIds,
    scopes: ['read', 'write'],
  });
  const endpoint = await receiver();
  const response = await fetch(`${harness.baseUrl}/api/v1/agent/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: endpoint.url, description: `bench ${label}` }),
  });
  if (response.status !== 201)
    throw new Error(`Subscribing answered ${response.status}: ${await response.text()}`);
  return { businessIds, key, endpoint };
}

/** Each event's position in its business's feed: the commit order the deliveries must keep. */
async function feedPositions(businessIds: string[]): Promise<Map<string, number>> {
  const [{ tableName }, { eventFeedPartition }, { queryAll }] = await Promise.all([
    import('#lib/db/client.ts'),
    import('#lib/db/keys.ts'),
    import('#lib/db/query-all.ts'),
  ]);
  const positions = new Map<string, number>();
  for (const id of businessIds) {
    const items = await queryAll({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :seq)',
      ExpressionAttributeValues: { ':pk': eventFeedPartition(id), ':seq': 'SEQ#' },
      ConsistentRead: true,
    });
    for (const item of items) positions.set(String((item.event as { id: string }).id), Number(item.seq));
  }
  return positions;
}

/**
 * Once every event of the businesses arrived (or SETTLE_MS passed): the events expected, and the
 * first arrival answered 200 of each id.
 */
async function settled(businessIds: string[], endpoint: { arrivals: Arrival[]; close(): Promise<void> }) {
  const expected = await historyIds(businessIds);
  await settle(endpoint.arrivals, expected, SETTLE_MS);
  await endpoint.close();
  const first = new Map<string, Arrival>();
  for (const arrival of endpoint.arrivals) {
    if (arrival.status === 200 && !first.has(arrival.id)) first.set(arrival.id, arrival);
  }
  return { expected, first };
}

const delivered = (arrivals: Arrival[]) => new Set(arrivals.filter((a) => a.status === 200).map((a) => a.id));

async function settle(arrivals: Arrival[], expected: Set<string>, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until && [...expected].some((id) => !delivered(arrivals).has(id))) await pause(250);
}

export async function measureWebhookLatency(
  harness: HarnessInfo,
  writesPerSecond: number,
): Promise<WebhookLatency> {
  const { businessIds, key, endpoint } = await arrange(harness, `${writesPerSecond}/s`);
  const load = await driveAgentWrites({
    baseUrl: harness.baseUrl,
    key,
    businessIds,
    writesPerSecond,
    durationS: DURATION_S,
  });
  const { expected, first } = await settled(businessIds, endpoint);
  const latencies = [...first.values()].map((arrival) => arrival.at - arrival.occurredAt);
  return {
    writesPerSecond,
    load,
    delivered: {
      p50: latencies.length ? quantile(latencies, 0.5) : Number.NaN,
      p99: latencies.length ? quantile(latencies, 0.99) : Number.NaN,
      n: latencies.length,
    },
    lost: [...expected].filter((id) => !first.has(id)).length,
    duplicated: endpoint.arrivals.filter((arrival) => arrival.status === 200).length - first.size,
  };
}

export async function measureWebhookOutage(harness: HarnessInfo): Promise<WebhookOutage> {
  const { businessIds, key, endpoint } = await arrange(harness, 'outage');
  endpoint.answer(503);
  const writing = driveAgentWrites({
    baseUrl: harness.baseUrl,
    key,
    businessIds,
    writesPerSecond: OUTAGE_WRITES_PER_SECOND,
    durationS: OUTAGE_WRITES_S,
  });
  await pause(OUTAGE_S * 1000);
  endpoint.answer(200);
  const recovered = Date.now();
  const load = await writing;
  const { expected, first } = await settled(businessIds, endpoint);
  const missed = [...first.values()].filter((arrival) => arrival.occurredAt < recovered);
  const positions = await feedPositions(businessIds);
  const outOfOrder = businessIds.filter((businessId) => {
    const seqs = [...first.values()]
      .filter((arrival) => arrival.businessId === businessId)
      .sort((a, b) => a.at - b.at)
      .map((arrival) => positions.get(arrival.id) ?? -1);
    return seqs.some((seq, index) => index > 0 && seq < (seqs[index - 1] as number));
  }).length;
  return {
    load,
    events: expected.size,
    caughtUpMs: missed.length ? Math.max(...missed.map((arrival) => arrival.at)) - recovered : 0,
    refusedAttempts: endpoint.arrivals.filter((arrival) => arrival.status === 503).length,
    lost: [...expected].filter((id) => !first.has(id)).length,
    outOfOrder,
  };
}

/** The bench's Webhooks section: both rates, then the outage, as Markdown lines through `out`. */
export async function webhooksSection(harness: HarnessInfo, out: (line: string) => void): Promise<void> {
  const measured = [];
  for (const rate of [WRITES_PER_SECOND, SUSTAINED_WRITES_PER_SECOND]) {
    progress(`bench: webhooks: ${rate} writes a second over ${BUSINESSES} businesses for ${DURATION_S} s…`);
    measured.push(await measureWebhookLatency(harness, rate));
  }
  progress(`bench: webhooks: a receiver down for ${OUTAGE_S} s, then back…`);
  const outage = await measureWebhookOutage(harness);
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  out(
    `\n## Webhooks\n\nA receiver on a loopback port subscribed through the API to ${BUSINESSES} businesses; agent writes over them for ${DURATION_S} s (as in the change events' bench). From each event's \`occurred_at\` to the moment its delivery reached the receiver (the publisher, the local bus, the rule's queue, DeliverWebhooks, the POST; docs/md):\n`,
  );
  out('| writes/s | writes (refused) | delivered | p50 | p99 | lost | duplicated |');
  out('|---:|---|---:|---:|---:|---:|---:|');
  for (const row of measured) {
    const refused = Object.entries(row.load.refusals)
      .map(([status, count]) => `${count} × ${status}`)
      .join(', ');
    out(
      `| ${row.writesPerSecond} | ${row.load.writes} (${row.load.failedWrites}${refused ? `: ${refused}` : ''}) | ${row.delivered.n} | ${ms(row.delivered.p50)} | ${ms(row.delivered.p99)} | ${row.lost} | ${row.duplicated} |`,
    );
  }
  out(
    `\nThen the receiver answered 503 for ${OUTAGE_S} s while ${OUTAGE_WRITES_PER_SECOND} writes a second went on for ${OUTAGE_WRITES_S} s (${outage.events} events), then 200 again: every event it had missed arrived ${ms(outage.caughtUpMs)} after it was back (the retry waits: 1 min, then 5 min, ±20 %), after ${outage.refusedAttempts} refused attempts; lost ${outage.lost}; businesses whose events arrived out of feed order: ${outage.outOfOrder}.`,
  );
  const worst = Math.max(...measured.map((row) => row.delivered.p99));
  const exact = [...measured, outage].every((row) => row.lost === 0) && outage.outOfOrder === 0;
  out(
    `\nGoal (p99 while the receiver is up, every rate): ≤ 5 s: ${met(worst <= 5000)}. Required: everything delivered after the outage, 0 lost, in order: ${met(exact)}.`,
  );
}
