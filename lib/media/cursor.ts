import { ValidationError } from '#lib/http/errors.ts';

/**
 * Media list cursors (DESIGN §8): opaque, and bound to the query that gave them out. A cursor
 * carries the query's tag (operation, business, filters) and the last key; it is accepted only for
 * the same query, with every key attribute a non-empty string and the index partition the query's
 * own, so a cursor from another business or filter, or a forged one, is a 422 — never a read of
 * something else, never a 500.
 */
type LastKey = Record<string, string>;

export function encodeMediaCursor(
  queryTag: string,
  lastKey: Record<string, unknown> | undefined,
): string | null {
  if (!lastKey) return null;
  return Buffer.from(JSON.stringify({ q: queryTag, k: lastKey })).toString('base64url');
}

export function decodeMediaCursor(
  cursor: string | undefined,
  queryTag: string,
  expected: { gsi1pk: string; attributes: readonly string[] },
): LastKey | undefined {
  if (cursor === undefined) return undefined;
  const invalid = () =>
    new ValidationError('Invalid cursor', [
      { loc: ['query', 'cursor'], msg: 'Not a cursor this list gave out for this query', type: 'cursor' },
    ]);
  let parsed: { q?: unknown; k?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const key = parsed?.k as Record<string, unknown> | undefined;
  if (parsed?.q !== queryTag || typeof key !== 'object' || key === null) throw invalid();
  const names = Object.keys(key).sort();
  if (names.join() !== [...expected.attributes].sort().join()) throw invalid();
  if (
    !names.every(
      (name) => typeof key[name] === 'string' && key[name] !== '' && String(key[name]).length < 300,
    )
  ) {
    throw invalid();
  }
  if (key.gsi1pk !== expected.gsi1pk) throw invalid();
  return key as LastKey;
}
