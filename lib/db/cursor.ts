import { createHmac, timingSafeEqual } from 'node:crypto';
import { cursorKeys } from '#lib/db/cursor-keys.ts';
import { ValidationError } from '#lib/http/errors.ts';
import type * as zt from '#lib/validation/zod.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * List cursors: opaque to callers, tamper-proof, and bound to the query that gave them out. A
 * cursor is `<payload>.<mac>`: the payload is base64url JSON of DynamoDB's last evaluated key; the
 * mac is HMAC-SHA256 (first 16 bytes) over the query's binding (list kind, tenant, filters) and
 * the payload, keyed with the current cursor key (lib/db/cursor-keys.ts) and checked against every
 * key still listed, so a rotation does not break cursors in flight. A cursor that was not issued
 * for this very query — forged, altered, from another business or filter — fails the mac and is a
 * 422; a key that passes is still checked against the list's own key shape before DynamoDB sees it.
 * Both functions are async because the keys may have to be read first; neither reads them when
 * there is nothing to sign or check.
 */
export type CursorBinding = readonly (string | number | boolean | null)[];

const MAC_BYTES = 16;
const INVALID_MESSAGE = 'Not a cursor this list gave out for this query';

const macOf = (key: Buffer, binding: CursorBinding, payload: string): Buffer =>
  createHmac('sha256', key)
    .update(`${JSON.stringify(binding)}\n${payload}`)
    .digest()
    .subarray(0, MAC_BYTES);

/** The cursor of the next page, or null when DynamoDB says this was the last one. */
export async function encodeCursor(
  binding: CursorBinding,
  lastKey: Record<string, unknown> | undefined,
): Promise<string | null> {
  if (!lastKey) return null;
  const { signing } = await cursorKeys();
  const payload = Buffer.from(JSON.stringify(lastKey)).toString('base64url');
  return `${payload}.${macOf(signing, binding, payload).toString('base64url')}`;
}

const invalidCursorOf = (parameter: string) =>
  new ValidationError('Invalid cursor', [
    { loc: ['query', parameter], msg: INVALID_MESSAGE, type: 'cursor' },
  ]);

/**
 * The start key a cursor stands for, or undefined without a cursor. Any cursor this query did not
 * give out is a 422; `keyShape` is the list's key (strict, every attribute a non-empty string
 * inside this tenant's partitions; see `keyPart`). The 422 names `parameter`, the query parameter
 * the cursor came in (`cursor` for the lists, `after` for the event feed).
 */
export async function decodeCursor<K extends Record<string, string>>(
  cursor: string | undefined,
  binding: CursorBinding,
  keyShape: zt.ZodType<K>,
  parameter = 'cursor',
): Promise<K | undefined> {
  if (cursor === undefined) return undefined;
  const invalidCursor = () => invalidCursorOf(parameter);
  const [payload, mac, ...rest] = cursor.split('.');
  if (!payload || !mac || rest.length > 0) throw invalidCursor();
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== MAC_BYTES) throw invalidCursor();
  const { accepted } = await cursorKeys();
  if (!accepted.some((key) => timingSafeEqual(given, macOf(key, binding, payload)))) throw invalidCursor();
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  const parsed = keyShape.safeParse(key);
  if (!parsed.success) throw invalidCursor();
  return parsed.data;
}

/** One key attribute of a cursor: a non-empty string that starts with `prefix` (its partition's). */
export const keyPart = (prefix: string) =>
  z.string().check(z.minLength(prefix.length + 1), z.maxLength(400), z.startsWith(prefix));

/** A key attribute that must be exactly this value (the partition key of the query itself). */
export const keyValue = (value: string) => z.literal(value);
