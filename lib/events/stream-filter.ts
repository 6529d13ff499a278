import { HISTORY_PREFIX, OUTBOX_PREFIX } from '#lib/db/keys.ts';

/**
 * Which stream records become change events: new Change History entries and new outbox entries
 * (lib/events/outbox.ts). The publisher's event source mapping filters with these patterns on AWS
 * (infra), so that nothing else invokes it, and the local harness applies the same patterns, read
 * from the synthesized template.
 */

const newItemWithSortKeyPrefix = (prefix: string) => ({
  eventName: ['INSERT'],
  dynamodb: { Keys: { sk: { S: [{ prefix }] } } },
});

/** Lambda event filter patterns (one filter each; a record matching any is delivered). */
export const STREAM_FILTER_PATTERNS = [
  newItemWithSortKeyPrefix(HISTORY_PREFIX),
  newItemWithSortKeyPrefix(OUTBOX_PREFIX),
];
