import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { EVENT_FEED_PREFIX, eventFeedPartition, eventFeedSortKey, keys } from '#lib/db/keys.ts';
import { storedItem } from '#lib/db/stored-item.ts';
import { ChangeEventSchema, type EventType } from '#lib/events/change-event.ts';
import { decodeFeedCursor, encodeFeedCursor, nextSince } from '#lib/events/feed-cursor.ts';
import { untilIncompleteTransaction } from '#lib/events/whole-transactions.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * A page of the event feed (docs/events.md, 'The feed'): ONE consistent Query of the feed's
 * partition, `EVENTS#<business_id>` for a business's feed or `EVENTS` for the feed of every
 * business, from the position after the cursor's, ascending, `Limit` = the page's limit. What the
 * page does not show (other types, expired events; other businesses, which the operation drops)
 * is filtered here after the Query, so a page may come back short, even empty, and still carry a
 * cursor; the cursor moves past everything the Query looked at, shown or not, so a filter that
 * matches nothing still moves the consumer forward. Apart from the operations because it signs
 * cursors (lib/db/cursor.ts).
 */

export type FeedEvent = z.output<ReturnType<typeof ChangeEventSchema>>;

/** A feed item as the publisher writes it (lib/events/feed-writes.ts), keys dropped. */
export interface FeedItem {
  seq: number;
  business_id: string;
  type: string;
  event: FeedEvent;
  published_at: string;
  expires_at_epoch: number;
  /** The positions the item's transaction gave this feed (absent on items written before it was). */
  batch_seqs?: number[] | undefined;
}

const feedItem = storedItem<FeedItem>('event feed item', () =>
  z.object({
    seq: z.number().check(z.int()),
    business_id: z.string(),
    type: z.string(),
    event: ChangeEventSchema(),
    published_at: z.iso.datetime(),
    expires_at_epoch: z.number(),
    batch_seqs: z.optional(z.array(z.number())),
  }),
);

export interface FeedPageRequest {
  limit: number;
  after?: string | undefined;
  types?: readonly EventType[] | undefined;
}

export interface FeedPage {
  /** The events to show, oldest first; a feed of every business has them all, for the caller to narrow. */
  events: FeedEvent[];
  /** Where the next page starts: always given, also past the end (poll with it). */
  nextCursor: string;
}

/** Past every position: `SEQ#~` sorts after every zero-padded number. */
const PAST_LAST = `${EVENT_FEED_PREFIX}~`;

/** One page of a business's feed (`businessId`) or of every business's (null). */
export async function readFeedPage(
  businessId: string | null,
  request: FeedPageRequest,
  now: Date = new Date(),
): Promise<FeedPage> {
  const after = await decodeFeedCursor(request.after, now);
  const { items, reachedEnd } = await readFeedItems(businessId, after?.seq ?? 0, request.limit);
  const nowEpoch = Math.floor(now.getTime() / 1000);
  const types = request.types ? new Set<string>(request.types) : undefined;
  const events = items
    .filter((item) => item.expires_at_epoch > nowEpoch && (!types || types.has(item.type)))
    .map((item) => item.event);
  const last = items.at(-1);
  const nextCursor = await encodeFeedCursor({
    seq: last ? last.seq : (after?.seq ?? 0),
    since: nextSince(reachedEnd, last && new Date(last.published_at), now),
  });
  return { events, nextCursor };
}

/**
 * Up to `limit` feed items after position `afterSeq`, oldest first, cut before a transaction not
 * yet wholly visible (so nothing is skipped); `reachedEnd` when nothing follows them yet. What the
 * feed pages and the webhook deliveries (lib/webhooks/run.ts) both read.
 */
export async function readFeedItems(
  businessId: string | null,
  afterSeq: number,
  limit: number,
): Promise<{ items: FeedItem[]; reachedEnd: boolean }> {
  const result = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :partition AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':partition': eventFeedPartition(businessId === null ? null : businessId.toLowerCase()),
        ':from': eventFeedSortKey(afterSeq + 1),
        ':to': PAST_LAST,
      },
      ScanIndexForward: true,
      ConsistentRead: true,
      Limit: limit,
    }),
  );
  const read = (result.Items ?? []).map((item) => feedItem.fromItem(item));
  const items = untilIncompleteTransaction(read, afterSeq);
  return { items, reachedEnd: result.LastEvaluatedKey === undefined && items.length === read.length };
}

/** The feed item at a position of the feed of every business, if it is still kept. */
export async function readFeedItemAt(seq: number): Promise<FeedItem | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: keys.eventFeed(null, seq), ConsistentRead: true }),
  );
  return Item ? feedItem.fromItem(Item) : undefined;
}
