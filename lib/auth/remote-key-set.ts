import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createLocalJWKSet, errors, type JSONWebKeySet } from 'jose';

/**
 * A JSON Web Key Set fetched over node:http(s) and kept, in place of jose's `createRemoteJWKSet`:
 * that one uses `fetch` and `Headers`, whose first use makes Node load its bundled undici, which
 * every console function's cold start would pay (docs/cold-starts.md). Behaviour is
 * jose's: the set is fetched on first use and again once `maxAgeMs` old; a token naming an unknown
 * key refetches it, at most once per `cooldownMs` (key rotation); a non-200 answer or a body that
 * is not a key set is a JOSEError (the token cannot be verified), a timeout a JWKSTimeout, a
 * network failure a JwksUnreachableError (lib/auth/jwks-unreachable.ts makes both a 503).
 *
 * A non-empty `seed` (the set given at deployment, JWT_KEY_SET) is used as if just fetched, so a
 * cold start makes no request: the first fetch comes when a token names a key the seed lacks, or
 * once `maxAgeMs` has passed. The cooldown counts from real fetches only, so the first unknown
 * key is fetched at once. An empty seed is no seed: the set is fetched on first use.
 */
export interface RemoteKeySetOptions {
  timeoutMs: number;
  cooldownMs: number;
  maxAgeMs?: number;
  seed?: JSONWebKeySet | undefined;
}

/** The key set could not be reached (DNS, connection refused or reset). */
export class JwksUnreachableError extends Error {
  override name = 'JwksUnreachableError';
}

/** A key set is a few keys; anything much larger is not one. */
const MAX_BYTES = 256 * 1024;

/**
 * One GET of a key set (200 and JSON, at most 256 KB, within `timeoutMs`); its content is the
 * caller's to check (jose's createLocalJWKSet does).
 */
export function fetchKeySet(url: URL, timeoutMs: number): Promise<JSONWebKeySet> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(
      url,
      { headers: { accept: 'application/json, application/jwk-set+json' } },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          reject(new errors.JOSEError('Expected 200 OK from the JSON Web Key Set HTTP response'));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BYTES)
            request.destroy(new errors.JOSEError('The JSON Web Key Set response is too large'));
          else chunks.push(chunk);
        });
        response.on('end', () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as JSONWebKeySet);
          } catch (cause) {
            reject(
              new errors.JOSEError('Failed to parse the JSON Web Key Set HTTP response as JSON', { cause }),
            );
          }
        });
      },
    );
    const timer = setTimeout(() => request.destroy(new errors.JWKSTimeout()), timeoutMs);
    request.on('close', () => clearTimeout(timer));
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(
        error instanceof errors.JOSEError ? error : new JwksUnreachableError(error.message, { cause: error }),
      );
    });
    request.end();
  });
}

export function remoteKeySet(
  url: URL,
  { timeoutMs, cooldownMs, maxAgeMs = 600_000, seed }: RemoteKeySetOptions,
) {
  const seeded = seed !== undefined && seed.keys.length > 0;
  let local: ReturnType<typeof createLocalJWKSet> | undefined = seeded ? createLocalJWKSet(seed) : undefined;
  /** When `local` was loaded (fetched or seeded): it is kept `maxAgeMs` from then. */
  let loadedAt = seeded ? Date.now() : 0;
  /** When the set was last fetched: an unknown key refetches `cooldownMs` after it at the earliest. */
  let fetchedAt = 0;
  let pending: Promise<ReturnType<typeof createLocalJWKSet>> | undefined;

  const reload = () => {
    pending ??= fetchKeySet(url, timeoutMs)
      .then((set) => {
        local = createLocalJWKSet(set);
        fetchedAt = loadedAt = Date.now();
        return local;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };

  return async (...args: Parameters<ReturnType<typeof createLocalJWKSet>>) => {
    const keys = local && Date.now() < loadedAt + maxAgeMs ? local : await reload();
    try {
      return await keys(...args);
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey && Date.now() >= fetchedAt + cooldownMs) {
        return (await reload())(...args);
      }
      throw error;
    }
  };
}
