/**
 * How long the feed keeps an event: a cursor is good for FEED_RETENTION_DAYS (an older one answers
 * 410, lib/events/feed-cursor.ts), and the publisher gives each feed item a day more before TTL
 * removes it (lib/events/feed-writes.ts), so a cursor that is still good never has an event after
 * it removed.
 */
export const FEED_RETENTION_DAYS = 30;
export const FEED_TTL_SECONDS = (FEED_RETENTION_DAYS + 1) * 24 * 3600;
