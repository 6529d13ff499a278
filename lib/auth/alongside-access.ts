/**
 * A read sent together with the access check that guards it, so the two cost one round trip
 * instead of two. What the read found (or the error it met) reaches the caller only once the check
 * has passed: a refused check answers exactly as it would have alone, and nothing read is shown.
 * Only for reads: a write must wait for its check.
 */
export async function readAlongsideAccess<A, T>(
  check: Promise<A>,
  read: () => Promise<T>,
): Promise<{ access: A; result: T }> {
  const [access, result] = await Promise.allSettled([check, read()]);
  if (access.status === 'rejected') throw access.reason;
  if (result.status === 'rejected') throw result.reason;
  return { access: access.value, result: result.value };
}
