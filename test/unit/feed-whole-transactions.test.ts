import { describe, expect, it } from 'vitest';
import { untilIncompleteTransaction } from '#lib/events/whole-transactions.ts';

describe('a page stops before a transaction it sees only part of', () => {
  const item = (seq: number, batch_seqs?: number[]) => ({ seq, ...(batch_seqs ? { batch_seqs } : {}) });

  it('keeps a page whose transactions are whole, and items written without their siblings named', () => {
    const items = [item(3, [3, 4]), item(4, [3, 4]), item(7, [7]), item(9)];
    expect(untilIncompleteTransaction(items, 2)).toEqual(items);
  });

  it('cuts before a position whose lower sibling is not there yet, and ignores siblings before the cursor', () => {
    expect(untilIncompleteTransaction([item(3, [3]), item(6, [5, 6])], 2).map(({ seq }) => seq)).toEqual([3]);
    expect(untilIncompleteTransaction([item(6, [5, 6])], 5).map(({ seq }) => seq)).toEqual([6]);
  });
});
