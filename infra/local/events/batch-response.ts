/**
 * What Lambda makes of a stream function's answer to one batch (partial batch responses): the
 * whole batch done, the batch done up to the lowest sequence number it names as failed (retried
 * from there), or the whole batch failed.
 *
 * As in Lambda, a `batchItemFailures` answer counts only when the mapping reports item failures
 * (`FunctionResponseTypes: [ReportBatchItemFailures]`); an item identifier that is missing, empty
 * or not a sequence number of the batch fails the whole batch; an empty list is success.
 */
export type BatchVerdict =
  | { done: 'all' }
  | { done: 'before'; failedFrom: string }
  | { done: 'none'; reason: string };

export function batchVerdict(
  result: unknown,
  batchSequenceNumbers: readonly string[],
  reportBatchItemFailures: boolean,
): BatchVerdict {
  if (!reportBatchItemFailures || result === null || typeof result !== 'object') return { done: 'all' };
  const failures = (result as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return { done: 'all' };
  if (!Array.isArray(failures)) return { done: 'none', reason: 'batchItemFailures is not a list' };
  if (failures.length === 0) return { done: 'all' };
  const inBatch = new Set(batchSequenceNumbers);
  let lowest: string | undefined;
  for (const failure of failures) {
    const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !inBatch.has(id)) {
      return {
        done: 'none',
        reason: `batchItemFailures names ${JSON.stringify(id ?? null)}, no record of the batch`,
      };
    }
    if (lowest === undefined || BigInt(id) < BigInt(lowest)) lowest = id;
  }
  return { done: 'before', failedFrom: lowest as string };
}

/** Sequence numbers are decimal strings of up to 40 digits: compared as numbers, never as text. */
export const sequenceAfter = (a: string, b: string): boolean => BigInt(a) > BigInt(b);
