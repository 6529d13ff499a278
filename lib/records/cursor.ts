import { keys } from '#lib/db/keys.ts';
import { ValidationError } from '#lib/http/errors.ts';

/**
 * List cursors are opaque to callers: base64url of the gsi1 sort key and the record's sort key.
 * The partition keys are never taken from the cursor but rebuilt from the path, so a forged
 * cursor cannot read another business.
 */
export function encodeCursor(lastKey: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify([lastKey.gsi1sk, lastKey.sk])).toString('base64url');
}

export function decodeCursor(cursor: string, businessId: string, entity: string): Record<string, string> {
  const invalid = () =>
    new ValidationError('Invalid cursor', [
      { loc: ['query', 'cursor'], msg: 'Not a cursor this list gave out', type: 'cursor' },
    ]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || !parsed.every((part) => typeof part === 'string')) {
    throw invalid();
  }
  const [gsi1sk, sk] = parsed as [string, string];
  const record = keys.record(businessId, entity, '');
  if (!sk.startsWith(record.sk) || gsi1sk.length > 200 || sk.length > 200) throw invalid();
  const { gsi1pk } = keys.recordOrder(businessId, entity, null, '', '');
  return { pk: record.pk, sk, gsi1pk, gsi1sk };
}
