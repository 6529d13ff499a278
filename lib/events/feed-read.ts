import type { EventType } from '#lib/events/change-event.ts';
import { decodeFeedCursor, encodeFeedCursor, nextSince } from '#lib/events/feed-cursor.ts';
import { type FeedEvent, readFeedItems } from '#lib/events/feed-items.ts';

/**
 * A page of the event feed (docs/events.md, 'The feed'): ONE consistent Query of the feed's
 * partition, `EVENTS#<business_id>` for a business's feed or `EVENTS` for the feed of every
 * business, from the position after the cursor's, ascending, `Limit` = the page's limit. What the
 * page does not show (other types, expired events; other businesses, which the operation drops)
 * is filtered here after the Query, so a page may come back short, even empty, and still carry a
 * cursor; the cursor moves past everything the Query looked at, shown or not, so a filter that
 * matches nothing still moves the consumer forward. Apart from the operations because it signs
 * cursors (lib/db/cursor.ts); the items themselves are read in feed-items.ts, which signs nothing.
 */

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
