import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { EVENT_FEED_PREFIX, eventFeedPartition, eventFeedSortKey, keys } from '#lib/db/keys.ts';
import { storedItem } from '#lib/db/stored-item.ts';
import { ChangeEventSchema } from '#lib/events/change-event.ts';
import { untilIncompleteTransaction } from '#lib/events/whole-transactions.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * The event feed's items as stored (docs/events.md, 'The feed'), read by position: what the feed's
 * pages (feed-read.ts) and the webhook deliveries (lib/webhooks/run.ts, one-off.ts) both read.
 * Apart from the pages because those sign cursors, whose keys come from Secrets Manager: a
 * function that only delivers webhooks bundles no Secrets Manager client.
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

/** Past every position: `SEQ#~` sorts after every zero-padded number. */
const PAST_LAST = `${EVENT_FEED_PREFIX}~`;

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
