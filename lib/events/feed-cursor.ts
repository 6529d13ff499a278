import { decodeCursor, encodeCursor } from '#lib/db/cursor.ts';
import { FEED_RETENTION_DAYS } from '#lib/events/retention.ts';
import { GoneError, ValidationError } from '#lib/http/errors.ts';
import { once } from '#lib/validation/lazy.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * The event feed's cursor (docs/events.md, 'The feed'): a position in the one sequence every
 * event gets, and the time from which that position is known to be complete. Opaque to callers
 * and MAC-ed like every list cursor (lib/db/cursor.ts), so neither half can be altered; a cursor
 * that fails the mac or the strict shape is a 422 naming `after`.
 *
 * The binding is the feed itself, not a business or a `types` filter: a position means the same
 * in every feed (one sequence numbers the events of all businesses), so a consumer may narrow
 * its filter or move from a business's feed to the feed of all its businesses and keep its place.
 * A cursor shows nothing of another business: a position, and access is checked on every page.
 *
 * `since` is no earlier than the publication of every event after `seq`. Events are kept 31 days
 * after publication (lib/events/feed-writes.ts), so a cursor whose `since` is at most 30 days
 * old has nothing after it expired; an older one answers 410, because the events right after it
 * may be gone and following it would skip them silently.
 */

const DAY_MS = 24 * 3600 * 1000;
const RETENTION_MS = FEED_RETENTION_DAYS * DAY_MS;

const BINDING = ['events'] as const;
const SEQ_DIGITS = 16;

export interface FeedPosition {
  /** The last event the feed looked at (0: before the first). Pages go on from seq + 1. */
  seq: number;
  /** No event after `seq` was published before this time. */
  since: Date;
}

const Payload = once(() =>
  z.strictObject({
    seq: z.string().check(z.regex(/^\d{16}$/)),
    since: z.iso.datetime(),
  }),
);

export async function encodeFeedCursor(position: FeedPosition): Promise<string> {
  const cursor = await encodeCursor(BINDING, {
    seq: String(position.seq).padStart(SEQ_DIGITS, '0'),
    since: position.since.toISOString(),
  });
  if (cursor === null) throw new Error('encodeCursor gave no cursor for a position');
  return cursor;
}

/**
 * The position `after` names, or undefined without one. 422 (naming `after`) for anything this
 * feed did not give out; 410 for a cursor past the feed's retention.
 */
export async function decodeFeedCursor(
  after: string | undefined,
  now: Date,
): Promise<FeedPosition | undefined> {
  const decoded = await decodeCursor(after, BINDING, Payload(), 'after');
  if (decoded === undefined) return undefined;
  const seq = Number(decoded.seq);
  const since = new Date(decoded.since);
  if (!Number.isSafeInteger(seq) || Number.isNaN(since.getTime())) {
    throw new ValidationError('Invalid cursor', [
      { loc: ['query', 'after'], msg: 'Not a cursor this feed gave out', type: 'cursor' },
    ]);
  }
  if (now.getTime() - since.getTime() > RETENTION_MS) {
    throw new GoneError(
      `This cursor is more than ${FEED_RETENTION_DAYS} days old and the feed keeps events for ${FEED_RETENTION_DAYS} days, ` +
        'so events after it may be gone. Start again without `after` (the oldest event kept) and read the records ' +
        'you follow again to catch up.',
    );
  }
  return { seq, since };
}

/**
 * The `since` of a page's next cursor. A page that reached the end of the feed: now (whatever
 * comes later is published later). A full page, whose last event may have successors already:
 * that event's publication, but never more than a day short of the retention, so that a consumer
 * that starts without a cursor at the oldest events kept gets a cursor it can still follow.
 */
export function nextSince(reachedEnd: boolean, lastPublishedAt: Date | undefined, now: Date): Date {
  if (reachedEnd || lastPublishedAt === undefined) return now;
  const floor = now.getTime() - RETENTION_MS + DAY_MS;
  return new Date(Math.min(now.getTime(), Math.max(lastPublishedAt.getTime(), floor)));
}
