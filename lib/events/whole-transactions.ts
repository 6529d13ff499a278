/**
 * The items up to the first whose transaction is not all visible yet. A Query is read-committed,
 * not serializable, against a transaction in progress (DynamoDB's isolation levels), so it may see
 * a later position of a transaction and not an earlier one; a cursor past it would skip the earlier
 * one for good. Each item names its transaction's positions in this feed (`batch_seqs`): the page
 * stops before an item with a lower sibling the page has not shown, and the next poll sees both.
 */
export function untilIncompleteTransaction<T extends { seq: number; batch_seqs?: number[] | undefined }>(
  items: T[],
  afterSeq: number,
): T[] {
  const shown = new Set<number>();
  for (const [index, item] of items.entries()) {
    const missing = (item.batch_seqs ?? []).some(
      (seq) => seq > afterSeq && seq < item.seq && !shown.has(seq),
    );
    if (missing) return items.slice(0, index);
    shown.add(item.seq);
  }
  return items;
}
