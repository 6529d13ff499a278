import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import type { ChangeEvent } from '#lib/events/change-event.ts';
import type { EventSource, RecordStep } from '#lib/events/derive.ts';
import { FEED_TTL_SECONDS } from '#lib/events/retention.ts';
import { logger } from '#lib/observability/logger.ts';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * Giving events their place in the feed (docs/events.md, 'The guarantee'). One counter hands out
 * positions in publication order, in the same transaction that puts the events in the feed of
 * every business and of their own, so a position is visible only once every lower one is: a
 * reader never passes a position that is filled later. With them go, per event, a marker that its
 * id has a position (a second publication of the same event cancels, so the feed has it once) and,
 * per record, the last version with an event (an event whose predecessor is not in the feed yet
 * cancels, so a record's events are in the feed in version order).
 */

/** 1 counter + 4 items an event stays under the 100 actions of a transaction. */
export const EVENTS_PER_TRANSACTION = 20;

/** What happened to each event offered to the feed, in order. */
export type FeedOutcome =
  | { status: 'published'; event: ChangeEvent; seq: number }
  | { status: 'duplicate'; event: ChangeEvent };

/**
 * How long an event waits for its record's previous change to reach the feed (published from
 * another shard, which AWS may deliver concurrently), checked every ORDER_POLL_MS. After that it
 * starts the record's chain anew: a change that never reached the feed (a record older than the
 * feed; a predecessor sent to the dead-letter queue) must not hold back every event behind it.
 */
export const ORDER_WAIT_MS = 5000;
const ORDER_POLL_MS = 100;

/** The last position given out, as this instance last wrote or read it (re-read when stale). */
let lastSeq: number | undefined;

/**
 * Put events in the feed, in order, each once. Returns the outcome of each. Throws on anything
 * else; the chunks committed before stay committed (a retry finds them as duplicates).
 */
export async function appendToFeed(
  sources: EventSource[],
  now: () => Date = () => new Date(),
  orderWaitMs: number = ORDER_WAIT_MS,
): Promise<FeedOutcome[]> {
  const outcomes: FeedOutcome[] = [];
  for (const chunk of chunksOf(sources)) outcomes.push(...(await appendChunk(chunk, now, orderWaitMs)));
  return outcomes;
}

/**
 * Consecutive events, at most EVENTS_PER_TRANSACTION a chunk, and a record's second change in a
 * new chunk: a transaction may touch an item (the record's state) once, and the second change's
 * condition needs the first one committed.
 */
function chunksOf(sources: EventSource[]): EventSource[][] {
  const chunks: EventSource[][] = [];
  let chunk: EventSource[] = [];
  let records = new Set<string>();
  for (const source of sources) {
    const record = source.record
      ? `${source.event.business_id}#${source.record.entity}#${source.record.recordId}`
      : undefined;
    if (chunk.length === EVENTS_PER_TRANSACTION || (record !== undefined && records.has(record))) {
      chunks.push(chunk);
      chunk = [];
      records = new Set();
    }
    chunk.push(source);
    if (record !== undefined) records.add(record);
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/** A chunk in one transaction; when it cancels for anything but a moved counter, event by event. */
async function appendChunk(
  chunk: EventSource[],
  now: () => Date,
  orderWaitMs: number,
): Promise<FeedOutcome[]> {
  const steps = await Promise.all(chunk.map(knownStep));
  const attempt = await commitWithFreshCounter(chunk, steps, now);
  if (attempt.committed) return attempt.outcomes;
  if (chunk.length > 1) {
    const outcomes: FeedOutcome[] = [];
    for (const source of chunk) outcomes.push(...(await appendChunk([source], now, orderWaitMs)));
    return outcomes;
  }
  const source = chunk[0] as EventSource;
  if (cancelledBy(attempt.reasons) === 'duplicate') return [{ status: 'duplicate', event: source.event }];
  return [await appendOutOfOrder(source, steps[0], now, orderWaitMs)];
}

/**
 * An event whose record's previous change is not in the feed yet: wait for it, then (after
 * orderWaitMs) publish it anyway, moving the record's state forward only.
 */
async function appendOutOfOrder(
  source: EventSource,
  step: RecordStep | undefined,
  now: () => Date,
  orderWaitMs: number,
): Promise<FeedOutcome> {
  const deadline = Date.now() + orderWaitMs;
  while (Date.now() < deadline) {
    await pause(ORDER_POLL_MS);
    const attempt = await commitWithFreshCounter([source], [step], now);
    if (attempt.committed) return attempt.outcomes[0] as FeedOutcome;
    if (cancelledBy(attempt.reasons) === 'duplicate') return { status: 'duplicate', event: source.event };
  }
  logger.warn("an event's record has a change missing from the feed; its chain starts again here", {
    event_id: source.event.id,
    business_id: source.event.business_id,
    entity: step?.entity,
    record_id: step?.recordId,
    version: step?.version,
  });
  // Start the chain again; when the record's state is already past this version, leave it be.
  for (const order of ['restart', 'none'] as const) {
    const attempt = await commitWithFreshCounter([source], [step], now, order);
    if (attempt.committed) return attempt.outcomes[0] as FeedOutcome;
    if (cancelledBy(attempt.reasons) === 'duplicate') return { status: 'duplicate', event: source.event };
  }
  throw new Error(`Event ${source.event.id} could not be put in the feed`);
}

/** Actions of a single event's transaction: 0 counter, 1 marker, 2 and 3 the feeds, 4 the record's state. */
function cancelledBy(reasons: string[]): 'duplicate' | 'order' {
  if (reasons[1] === 'ConditionalCheckFailed') return 'duplicate';
  if (reasons[4] === 'ConditionalCheckFailed') return 'order';
  throw new Error(`The feed transaction was cancelled: ${reasons.join(', ')}`);
}

/** How a transaction treats the records' state: follow the chain, start it again (never backwards), or leave it. */
type OrderMode = 'chain' | 'restart' | 'none';

type Attempt = { committed: true; outcomes: FeedOutcome[] } | { committed: false; reasons: string[] };

/** Publishers race for the counter only as many at a time as the stream has shards being read. */
const MAX_COUNTER_RACES = 50;

/** Commit at the counter's current value; another publisher moving it first only means trying again. */
async function commitWithFreshCounter(
  chunk: EventSource[],
  steps: (RecordStep | undefined)[],
  now: () => Date,
  order: OrderMode = 'chain',
): Promise<Attempt> {
  for (let race = 0; race < MAX_COUNTER_RACES; race++) {
    const base = lastSeq ?? (await readCounter());
    const publishedAt = now();
    const items = feedTransaction(chunk, steps, base, publishedAt, order);
    try {
      await dynamo.send(new TransactWriteCommand({ TransactItems: items }));
      lastSeq = base + chunk.length;
      return {
        committed: true,
        outcomes: chunk.map((source, index) => ({
          status: 'published',
          event: withVersion(source.event, steps[index]),
          seq: base + index + 1,
        })),
      };
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = (error.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
      if (reasons.some((code) => code === 'TransactionConflict') || reasons[0] === 'ConditionalCheckFailed') {
        // Another publisher took the counter first: read it again, after a short random pause.
        lastSeq = undefined;
        await pause(Math.random() * 10 * Math.min(race + 1, 10));
        continue;
      }
      return { committed: false, reasons };
    }
  }
  throw new Error(`The feed's counter kept moving: ${MAX_COUNTER_RACES} attempts`);
}

function feedTransaction(
  chunk: EventSource[],
  steps: (RecordStep | undefined)[],
  base: number,
  publishedAt: Date,
  order: OrderMode,
): TransactItem[] {
  const seconds = Math.floor(publishedAt.getTime() / 1000);
  const items: TransactItem[] = [
    {
      Update: {
        TableName: tableName,
        Key: keys.eventCounter(),
        UpdateExpression: 'SET last_seq = :next',
        ConditionExpression: base === 0 ? 'attribute_not_exists(last_seq)' : 'last_seq = :base',
        ExpressionAttributeValues: { ':next': base + chunk.length, ...(base === 0 ? {} : { ':base': base }) },
      },
    },
  ];
  // Each feed item names the positions its transaction gave the same feed (feed-read.ts: a Query
  // may see part of a transaction, and a page stops before a position whose siblings are not all there).
  const allSeqs = chunk.map((_source, index) => base + index + 1);
  const businessSeqs = (businessId: string) =>
    allSeqs.filter((_seq, index) => chunk[index]?.event.business_id === businessId);
  chunk.forEach((source, index) => {
    const seq = base + index + 1;
    const step = steps[index];
    const event = withVersion(source.event, step);
    const feedItem = {
      seq,
      business_id: event.business_id,
      type: event.type,
      event,
      published_at: publishedAt.toISOString(),
      expires_at_epoch: seconds + FEED_TTL_SECONDS,
    };
    items.push(
      {
        Put: {
          TableName: tableName,
          Item: { ...keys.eventMarker(event.id), seq, expires_at_epoch: seconds + FEED_TTL_SECONDS },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          TableName: tableName,
          Item: { ...keys.eventFeed(null, seq), ...feedItem, batch_seqs: allSeqs },
        },
      },
      {
        Put: {
          TableName: tableName,
          Item: {
            ...keys.eventFeed(event.business_id, seq),
            ...feedItem,
            batch_seqs: businessSeqs(event.business_id),
          },
        },
      },
    );
    if (step && order !== 'none') items.push(recordOrderItem(event.business_id, step, order));
  });
  return items;
}

/**
 * The record's last version in the feed moves to this change's, on the condition that the
 * previous change is the last one there: a create or update at version v follows v - 1, a
 * delete follows the version it deleted. Only a record's first evented version has no state to follow.
 */
function recordOrderItem(businessId: string, step: RecordStep, order: 'chain' | 'restart'): TransactItem {
  const key = keys.eventRecordState(businessId, step.entity, step.recordId);
  const version = step.version as number;
  if (order === 'restart') {
    return {
      Update: {
        TableName: tableName,
        Key: key,
        UpdateExpression: 'SET last_version = :v, deleted = :deleted',
        ConditionExpression: 'attribute_not_exists(pk) OR last_version < :v',
        ExpressionAttributeValues: { ':v': version, ':deleted': step.action === 'delete' },
      },
    };
  }
  if (step.action === 'delete') {
    return {
      Update: {
        TableName: tableName,
        Key: key,
        UpdateExpression: 'SET last_version = :v, deleted = :true',
        ConditionExpression: 'last_version = :v AND deleted = :false',
        ExpressionAttributeValues: { ':v': version, ':true': true, ':false': false },
      },
    };
  }
  const first = version === firstEventedVersion(step.entity);
  return {
    Update: {
      TableName: tableName,
      Key: key,
      UpdateExpression: 'SET last_version = :v, deleted = :false',
      ConditionExpression: first ? 'attribute_not_exists(pk)' : 'last_version = :previous',
      ExpressionAttributeValues: {
        ':v': version,
        ':false': false,
        ...(first ? {} : { ':previous': version - 1 }),
      },
    },
  };
}

/** A profile's first version is the business's creation, which has no Change History entry (no event). */
const firstEventedVersion = (entity: string) => (entity === 'profile' ? 2 : 1);

/**
 * The step as the order check needs it. A demoted primary's entry has no version: its write
 * raised the record's version by one without reading it, so it is the version after the last one
 * in the feed. Without state there is nothing to follow: no check, and the event's version is null.
 */
async function knownStep(source: EventSource): Promise<RecordStep | undefined> {
  const step = source.record;
  if (!step || step.version !== null) return step;
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: tableName,
      Key: keys.eventRecordState(source.event.business_id, step.entity, step.recordId),
      ConsistentRead: true,
    }),
  );
  if (!Item || typeof Item.last_version !== 'number') return undefined;
  return { ...step, version: Item.last_version + 1 };
}

/** The event as published: a demoted primary's version is filled in (a delete's stays null). */
function withVersion(event: ChangeEvent, step: RecordStep | undefined): ChangeEvent {
  if (!step || step.action === 'delete' || event.version !== null) return event;
  return { ...event, version: step.version };
}

async function readCounter(): Promise<number> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: keys.eventCounter(), ConsistentRead: true }),
  );
  return typeof Item?.last_seq === 'number' ? Item.last_seq : 0;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Tests only: forget the cached counter, as a new instance would. */
export function forgetCounterForTests(): void {
  lastSeq = undefined;
}
