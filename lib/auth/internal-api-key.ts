import { createHash, timingSafeEqual } from 'node:crypto';
import type { Authenticator, InternalServicePrincipal } from '#lib/auth/principal.ts';
import { optionalEnv } from '#lib/config/env.ts';
import { secretString } from '#lib/config/secrets.ts';
import { readBesideCredential } from '#lib/http/early-read.ts';
import { UnauthorizedError } from '#lib/http/errors.ts';

const CHALLENGE = 'ApiKey header="x-internal-api-key"';
const SECRET_CACHE_SECONDS = 300;

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * The valid keys, from a comma-separated list (env), a JSON array, or a JSON object such as
 * `{"current": "…", "previous": "…"}` (the usual Secrets Manager shape). Two keys allow rotation.
 */
export function parseKeyList(raw: string): string[] {
  const trimmed = raw.trim();
  const parsed: unknown = /^[[{]/.test(trimmed) ? JSON.parse(trimmed) : trimmed.split(',');
  const list = Array.isArray(parsed)
    ? parsed
    : typeof parsed === 'object' && parsed
      ? Object.values(parsed)
      : [];
  if (!list.every((key) => typeof key === 'string')) throw new Error('Internal API keys must be strings');
  return list.map((key) => key.trim()).filter((key) => key.length > 0);
}

/**
 * Compare as SHA-256 digests with timingSafeEqual: equal-length buffers whatever the input, so
 * neither the content nor the length of a valid key leaks through timing. Every key is compared.
 */
export function matchesAnyKey(candidate: string, validKeys: string[]): boolean {
  const candidateDigest = digest(candidate);
  let matched = false;
  for (const key of validKeys) {
    if (timingSafeEqual(candidateDigest, digest(key))) matched = true;
  }
  return matched;
}

let secretId: string | undefined;
let envKeys: string[] | undefined;

/** In AWS the keys live in Secrets Manager (INTERNAL_API_KEYS_SECRET_ID); locally in INTERNAL_API_KEYS. */
async function currentKeys(): Promise<string[]> {
  if (secretId) {
    // An operator writes the keys; until then no key is valid.
    const secret = await secretString(secretId, { maxAge: SECRET_CACHE_SECONDS });
    return secret === undefined ? [] : parseKeyList(secret);
  }
  return envKeys ?? [];
}

/**
 * An internal handler's `earlyRead`: the operation's read, sent while the keys are checked (in AWS
 * they come from Secrets Manager at a cold start and every 5 minutes), for a request that
 * carries the header.
 */
export const besideInternalKey = readBesideCredential((headers) => Boolean(headers['x-internal-api-key']));

/** Service-to-service callers: `x-internal-api-key`. */
export const internalAuth: Authenticator<InternalServicePrincipal> = {
  kind: 'internal',
  prepare() {
    secretId = optionalEnv('INTERNAL_API_KEYS_SECRET_ID');
    const raw = optionalEnv('INTERNAL_API_KEYS');
    if (!secretId && !raw) throw new Error('Set INTERNAL_API_KEYS_SECRET_ID or INTERNAL_API_KEYS');
    envKeys = raw ? parseKeyList(raw) : undefined;
  },
  async authenticate(headers) {
    const candidate = headers['x-internal-api-key'];
    if (!candidate) throw new UnauthorizedError('Send the x-internal-api-key header', CHALLENGE);
    if (!matchesAnyKey(candidate, await currentKeys())) {
      throw new UnauthorizedError('The internal API key is not valid', CHALLENGE);
    }
    return { kind: 'internal-service' };
  },
};
