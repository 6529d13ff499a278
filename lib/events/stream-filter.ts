/**
 * Which stream records become change events: new Change History entries (`HISTORY#…`) and new
 * outbox entries (`OUTBOX#…`). The publisher's event source mapping filters with these patterns
 * on AWS (infra/events-stack.ts), so that nothing else invokes it.
 */

const newItemWithSortKeyPrefix = (prefix: string) => ({
  eventName: ['INSERT'],
  dynamodb: { Keys: { sk: { S: [{ prefix }] } } },
});

/** Lambda event filter patterns (one filter each; a record matching any is delivered). */
export const STREAM_FILTER_PATTERNS = [
  newItemWithSortKeyPrefix('HISTORY#'),
  newItemWithSortKeyPrefix('OUTBOX#'),
];
