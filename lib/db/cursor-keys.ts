import { optionalEnv } from '#lib/config/env.ts';
import { secrets } from '#lib/config/secrets.ts';
import { once } from '#lib/validation/lazy.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * The HMAC keys of list cursors (lib/db/cursor.ts). In AWS they live in a Secrets Manager secret
 * (CURSOR_SECRET_ID) as `{"current": "…", "previous"?: "…"}`, read through Powertools Parameters
 * on a container's first use and cached for 5 minutes, so no key is ever in a function's
 * environment; locally CURSOR_SECRET holds one key, a comma-separated list or a JSON array (the
 * first signs), or the same JSON object. `current` signs; a mac made with any listed key is
 * accepted, so an operator rotates by moving the old key to `previous` and writing a new
 * `current`, and cursors already handed out keep working until `previous` is dropped.
 */
export interface CursorKeys {
  /** Signs new cursors. */
  signing: Buffer;
  /** Every key whose macs are accepted, `signing` first. */
  accepted: Buffer[];
}

const SECRET_CACHE_SECONDS = 300;

// Built on the first parse: a list's first call reads the keys only when it reads or writes a cursor.
const Key = once(() => z.string().check(z.trim(), z.minLength(1)));
const KeyList = once(() => z.array(Key()).check(z.minLength(1)));
const KeyPair = once(() => z.strictObject({ current: Key(), previous: z.optional(Key()) }));

const SHAPES =
  'one key, a comma-separated list, a JSON array (the first signs), or {"current": "…", "previous"?: "…"}';

/** The keys a secret's text lists; any other text is refused without echoing it (it is a secret). */
export function parseCursorKeys(raw: string): CursorKeys {
  let listed: string[];
  try {
    const text = raw.trim();
    if (text.startsWith('{')) {
      const { current, previous } = KeyPair().parse(JSON.parse(text));
      listed = previous === undefined ? [current] : [current, previous];
    } else {
      listed = KeyList().parse(text.startsWith('[') ? JSON.parse(text) : text.split(','));
    }
  } catch {
    throw new Error(`The cursor key must be ${SHAPES}`);
  }
  const accepted = listed.map((key) => Buffer.from(key, 'utf8'));
  return { signing: accepted[0] as Buffer, accepted };
}

async function rawKeys(): Promise<string> {
  const secretId = optionalEnv('CURSOR_SECRET_ID');
  if (secretId) {
    const value = await secrets().get(secretId, { maxAge: SECRET_CACHE_SECONDS });
    if (typeof value !== 'string') throw new Error(`The secret ${secretId} holds no text`);
    return value;
  }
  const value = optionalEnv('CURSOR_SECRET');
  if (value === undefined) throw new Error('Set CURSOR_SECRET_ID or CURSOR_SECRET');
  return value;
}

let parsedFrom: string | undefined;
let parsed: CursorKeys | undefined;

/** The keys now: Secrets Manager's answer is cached by Powertools, its parse until the text changes. */
export async function cursorKeys(): Promise<CursorKeys> {
  const raw = await rawKeys();
  if (parsed === undefined || raw !== parsedFrom) {
    parsed = parseCursorKeys(raw);
    parsedFrom = raw;
  }
  return parsed;
}
