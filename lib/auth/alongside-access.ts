import { createItemReader, type ItemReader } from '#lib/db/item-reader.ts';

/**
 * A read sent together with the access check that guards it, so the two cost one round trip
 * instead of two; the items both read by key through the reader they are given cost one call.
 * What the read found (or the error it met) reaches the caller only once the check has passed: a
 * refused check answers exactly as it would have alone, and nothing read is shown. Only for
 * reads: a write must wait for its check.
 */
export async function readAlongsideAccess<A, T>(
  check: (reads: ItemReader) => Promise<A>,
  read: (reads: ItemReader) => Promise<T>,
): Promise<{ access: A; result: T }> {
  // Items both read by key through this reader go out as one call (lib/db/item-reader.ts).
  const reads = createItemReader();
  const [access, result] = await Promise.allSettled([check(reads), read(reads)]);
  if (access.status === 'rejected') throw access.reason;
  if (result.status === 'rejected') throw result.reason;
  return { access: access.value, result: result.value };
}
