import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { HarnessInfo } from '../infra/local/harness-process.ts';
import { driveAgentWrites, historyIds, pause } from './agent-writes.ts';
import { quantile } from './stats.ts';

/**
 * How fast change events follow their writes on the local stack (docs/events.md): agent writes at
 * WRITES_PER_SECOND over BUSINESSES businesses for DURATION_S, each a Change History entry and so
 * an event. A watcher Queries the feed of every business every FEED_POLL_MS and notes when each
 * event first appears; another reads the local bus's events (the dev console's JSON) every
 * BUS_POLL_MS. Latency is from the event's `occurred_at` (stamped just before its transaction
 * commits, so it slightly overstates) to the moment it was seen. Then it waits for the feed to
 * settle and counts, against the Change History, events lost and ids seen twice.
 */
export const WRITES_PER_SECOND = 50;
export const BUSINESSES = 10;
export const DURATION_S = 30;
/**
 * A rate the local stack sustains on a 2-core machine (`npm run load` writes about 37 a second with
 * reads between them), measured beside the 50, which it does not: there DynamoDB Local
 * falls behind, functions time out (503) and the figures are the queue's.
 */
export const SUSTAINED_WRITES_PER_SECOND = 20;
const FEED_POLL_MS = 100;
const BUS_POLL_MS = 200;
const SETTLE_MS = 30_000;

export interface ChangeEventLatency {
  writesPerSecond: number;
  writes: number;
  failedWrites: number;
  /** Refused writes by status. */
  refusals: Record<string, number>;
  feed: { p50: number; p99: number; n: number };
  bus: { p50: number; p99: number; n: number };
  lost: number;
  duplicated: number;
}

export async function measureChangeEvents(
  harness: HarnessInfo,
  writesPerSecond: number = WRITES_PER_SECOND,
): Promise<ChangeEventLatency> {
  Object.assign(process.env, harness.env, { POWERTOOLS_LOG_LEVEL: 'ERROR' });
  const [
    { createBusiness },
    { createAgentKey },
    { dynamo, tableName },
    { eventFeedPartition, keys },
    { queryAll },
  ] = await Promise.all([
    import('#lib/businesses/business-store.ts'),
    import('#lib/auth/agent-keys.ts'),
    import('#lib/db/client.ts'),
    import('#lib/db/keys.ts'),
    import('#lib/db/query-all.ts'),
  ]);
  const businesses = await Promise.all(
    Array.from({ length: BUSINESSES }, (_, index) =>
      createBusiness({
        name: `Events bench ${writesPerSecond}/s ${index}`,
        createdBy: { type: 'user', id: 'bench' },
      }),
    ),
  );
  const { key } = await createAgentKey({
    name: 'events-bench',
    businesses: businesses.map((business) => business.id),
    scopes: ['read', 'write'],
  });

  const feedSeen = new Map<string, number>();
  const busSeen = new Map<string, number>();
  const occurred = new Map<string, number>();
  let watching = true;

  // The feed of every business: the same transaction puts each event there and in its business's
  // feed, so it is readable in both at once, and one Query reads all ten.
  const ours = new Set(businesses.map(({ id }) => id));
  const counter = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: keys.eventCounter(), ConsistentRead: true }),
  );
  let lastGlobalSeq = typeof counter.Item?.last_seq === 'number' ? counter.Item.last_seq : 0;
  const watchFeed = async () => {
    while (watching) {
      const { Items = [] } = await dynamo.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND sk > :after',
          ExpressionAttributeValues: {
            ':pk': eventFeedPartition(null),
            ':after': keys.eventFeed(null, lastGlobalSeq).sk,
          },
          ConsistentRead: true,
        }),
      );
      const now = Date.now();
      for (const item of Items) {
        if (!String(item.sk).startsWith('SEQ#')) continue;
        lastGlobalSeq = Math.max(lastGlobalSeq, item.seq as number);
        const event = item.event as { id: string; business_id: string; occurred_at: string };
        if (!ours.has(event.business_id) || feedSeen.has(event.id)) continue;
        feedSeen.set(event.id, now);
        occurred.set(event.id, Date.parse(event.occurred_at));
      }
      await pause(FEED_POLL_MS);
    }
  };
  const watchBus = async () => {
    while (watching) {
      const response = await fetch(`${harness.baseUrl}/console/dev/events.json`);
      const { events } = (await response.json()) as {
        events: { detail: { id: string }; received_at: string }[];
      };
      for (const event of events) {
        if (!busSeen.has(event.detail.id)) busSeen.set(event.detail.id, Date.parse(event.received_at));
      }
      await pause(BUS_POLL_MS);
    }
  };
  const watchers = [watchFeed(), watchBus()];

  const load = await driveAgentWrites({
    baseUrl: harness.baseUrl,
    key,
    businessIds: businesses.map(({ id }) => id),
    writesPerSecond,
    durationS: DURATION_S,
  });

  // Settle: every Change History entry of the businesses has its event in the feed, or time is up.
  const history = await historyIds(businesses.map(({ id }) => id));
  const settleBy = Date.now() + SETTLE_MS;
  while (Date.now() < settleBy && [...history].some((id) => !feedSeen.has(id))) await pause(200);
  await pause(1000);
  watching = false;
  await Promise.all(watchers);

  // Duplicates: every feed item of the businesses, counted by event id.
  let feedItems = 0;
  for (const { id } of businesses) {
    feedItems += (
      await queryAll({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :seq)',
        ExpressionAttributeValues: { ':pk': eventFeedPartition(id), ':seq': 'SEQ#' },
        ConsistentRead: true,
      })
    ).length;
  }

  const latencies = (seen: Map<string, number>) =>
    [...seen].flatMap(([id, at]) => {
      const from = occurred.get(id);
      return from === undefined ? [] : [at - from];
    });
  const summary = (values: number[]) => ({
    p50: values.length ? quantile(values, 0.5) : Number.NaN,
    p99: values.length ? quantile(values, 0.99) : Number.NaN,
    n: values.length,
  });
  return {
    writesPerSecond,
    ...load,
    feed: summary(latencies(feedSeen)),
    bus: summary(latencies(busSeen)),
    lost: [...history].filter((id) => !feedSeen.has(id)).length,
    duplicated: feedItems - feedSeen.size,
  };
}
