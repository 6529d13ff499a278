import { randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { eventFeedPartition, keys } from '#lib/db/keys.ts';
import { queryAll } from '#lib/db/query-all.ts';
import type { ChangeEvent, EventType } from '#lib/events/change-event.ts';

/**
 * Feed items written straight into the table, as the publisher writes them (lib/events/
 * feed-writes.ts): the shared counter moved in the same transaction as the items, under the same
 * condition, so these take real positions in the one sequence beside whatever the publisher puts
 * there, and a reader sees a position only once every lower one is filled. For the feed's read
 * side, tested apart from what produces events.
 */

/** The shared counter's item: the same key as the publisher's (pk EVENTS, sk COUNTER). */
const COUNTER = keys.eventCounter();

/** A change event of a business, with the fields a test does not care about filled in. */
export function changeEvent(businessId: string, type: EventType, overrides: Partial<ChangeEvent> = {}) {
  const entity = type.split('.')[0] === 'record' ? 'faq' : (type.split('.')[0] as string);
  return {
    id: randomUUID(),
    type,
    business_id: businessId,
    entity,
    record_id: entity === 'blog_schedule' ? null : randomUUID(),
    version: type.endsWith('deleted') || entity === 'photo' || entity === 'blog_schedule' ? null : 1,
    changed_fields: ['answer', 'question'],
    actor: { kind: 'agent', id: randomUUID() },
    change_id: randomUUID(),
    changeset_id: null,
    undo_of: null,
    revert_of: null,
    occurred_at: new Date().toISOString(),
    ...overrides,
  } satisfies ChangeEvent;
}

export interface AppendOptions {
  /** When the events were published (default now); they expire 31 days later, as the publisher's. */
  publishedAt?: Date;
  /** Their TTL epoch instead (an event past it is expired but not yet deleted). */
  expiresAtEpoch?: number;
}

const TTL_SECONDS = 31 * 24 * 3600;

/** Put events at the next positions of the feed, in order; returns their positions. */
export async function appendFeedEvents(
  events: ChangeEvent[],
  options: AppendOptions = {},
): Promise<number[]> {
  const seqs: number[] = [];
  for (let start = 0; start < events.length; start += 40) {
    seqs.push(...(await appendChunk(events.slice(start, start + 40), options)));
  }
  return seqs;
}

async function appendChunk(events: ChangeEvent[], options: AppendOptions): Promise<number[]> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const { Item } = await dynamo.send(
      new GetCommand({ TableName: tableName, Key: COUNTER, ConsistentRead: true }),
    );
    const base = typeof Item?.last_seq === 'number' ? Item.last_seq : 0;
    const publishedAt = options.publishedAt ?? new Date();
    const expires = options.expiresAtEpoch ?? Math.floor(publishedAt.getTime() / 1000) + TTL_SECONDS;
    try {
      await dynamo.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: tableName,
                Key: COUNTER,
                UpdateExpression: 'SET last_seq = :next',
                ConditionExpression: base === 0 ? 'attribute_not_exists(last_seq)' : 'last_seq = :base',
                ExpressionAttributeValues: {
                  ':next': base + events.length,
                  ...(base === 0 ? {} : { ':base': base }),
                },
              },
            },
            ...events.flatMap((event, index) => {
              const seq = base + index + 1;
              const item = {
                seq,
                business_id: event.business_id,
                type: event.type,
                event,
                published_at: publishedAt.toISOString(),
                expires_at_epoch: expires,
              };
              return [null, event.business_id].map((feed) => ({
                Put: { TableName: tableName, Item: { ...keys.eventFeed(feed, seq), ...item } },
              }));
            }),
          ],
        }),
      );
      return events.map((_event, index) => base + index + 1);
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 * (attempt + 1)));
    }
  }
  throw new Error('the feed counter kept moving');
}

/** The last position given out so far. */
export async function lastFeedSeq(): Promise<number> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: COUNTER, ConsistentRead: true }),
  );
  return typeof Item?.last_seq === 'number' ? Item.last_seq : 0;
}

/** Every item of a feed (a business's, or null: every business's), oldest first, read straight from the table. */
export async function feedItemsOf(businessId: string | null): Promise<{ seq: number; event: ChangeEvent }[]> {
  const items = await queryAll({
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :seq)',
    ExpressionAttributeValues: { ':pk': eventFeedPartition(businessId), ':seq': 'SEQ#' },
    ConsistentRead: true,
  });
  return items.map((item) => ({ seq: item.seq as number, event: item.event as ChangeEvent }));
}
