import type { JWK } from 'jose';
import { ACCESS_TOKEN_MAX_SECONDS } from '#lib/oauth/settings.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * When each access-token key may sign and when it stops being published: the schedule the
 * published-keys item carries (lib/oauth/published-keys.ts). Pure rules, no I/O.
 *
 * A key is published (`published_at`) before it signs (`signs_from`), so every cache of the key
 * set has it by the time a token names it; the key it replaces signs until then and stays
 * published (`retires_at`) until every token it signed has expired.
 */

/** How long the token endpoint keeps the private keys it read from Secrets Manager. */
export const SIGNING_SECRET_CACHE_SECONDS = 300;
/** How long a resource server keeps the key set before reading it again with a grant lookup. */
export const KEY_SET_CACHE_SECONDS = 300;
/** The public JWKS route's `cache-control: max-age`. */
export const JWKS_ROUTE_MAX_AGE_SECONDS = 300;
/** The clock skew a verifier allows (jwtVerify's clockTolerance). */
export const CLOCK_TOLERANCE_SECONDS = 5;

/**
 * A rotated-in key signs this long after it is published: longer than every cache above, so no
 * cache that predates the publication is still in use when the first token names the key.
 */
export const PUBLISH_LEAD_SECONDS = 600;
/**
 * A replaced key stays published this long after its successor starts signing: the longest access
 * token, plus the private-key cache (a token endpoint holding a stale copy of the keys signs with
 * the old key until it re-reads them), plus clock skew.
 */
export const RETIRE_AFTER_SECONDS =
  ACCESS_TOKEN_MAX_SECONDS + SIGNING_SECRET_CACHE_SECONDS + CLOCK_TOLERANCE_SECONDS;

/** A public ES256 key with a kid: only the members a verifier needs, never a private part. */
export const PublicJwk = z.strictObject({
  kty: z.literal('EC'),
  crv: z.literal('P-256'),
  x: z.string(),
  y: z.string(),
  kid: z.string().check(z.minLength(1)),
  alg: z.literal('ES256'),
  use: z.literal('sig'),
});

export const PublishedKey = z.object({
  jwk: PublicJwk,
  published_at: z.iso.datetime(),
  signs_from: z.iso.datetime(),
  retires_at: z.optional(z.iso.datetime()),
});
export type PublishedKey = z.infer<typeof PublishedKey>;

const at = (iso: string) => Date.parse(iso);

/** The keys that verify tokens at `now`: published, not yet retired. */
export function liveKeys(keys: PublishedKey[], now: number): PublishedKey[] {
  return keys.filter((key) => key.retires_at === undefined || now < at(key.retires_at));
}

/**
 * The kid that signs at `now`: of the keys whose private part is `held`, the one that started
 * signing last. A key retiring too soon to outlive a token signed now is never chosen.
 */
export function signingKid(keys: PublishedKey[], held: Set<string>, now: number): string | undefined {
  const stillValidAt = now + (ACCESS_TOKEN_MAX_SECONDS + CLOCK_TOLERANCE_SECONDS) * 1000;
  return keys
    .filter((key) => held.has(key.jwk.kid) && at(key.signs_from) <= now)
    .filter((key) => key.retires_at === undefined || stillValidAt <= at(key.retires_at))
    .sort((a, b) => at(b.signs_from) - at(a.signs_from))[0]?.jwk.kid;
}

/** A key rotated in whose time to sign has not come yet, if there is one. */
export function pendingKey(keys: PublishedKey[], now: number): PublishedKey | undefined {
  return keys.find((key) => at(key.signs_from) > now);
}

/** The public part of a private JWK, as it is published. */
export function publicJwk({ kty, crv, x, y, kid }: JWK): z.infer<typeof PublicJwk> {
  return PublicJwk.parse({ kty, crv, x, y, kid, alg: 'ES256', use: 'sig' });
}

/**
 * The schedule after `next` is published at `now`: it signs `leadSeconds` later, every key still
 * live retires `RETIRE_AFTER_SECONDS` after that (or sooner, if it already had a date), and the
 * keys already retired are dropped.
 */
export function withRotatedKey(
  keys: PublishedKey[],
  next: JWK,
  now: number,
  leadSeconds = PUBLISH_LEAD_SECONDS,
): PublishedKey[] {
  const signsFrom = now + leadSeconds * 1000;
  const retiresAt = signsFrom + RETIRE_AFTER_SECONDS * 1000;
  const kept = liveKeys(keys, now).map((key) => ({
    ...key,
    retires_at: new Date(Math.min(retiresAt, key.retires_at ? at(key.retires_at) : retiresAt)).toISOString(),
  }));
  return [
    ...kept,
    {
      jwk: publicJwk(next),
      published_at: new Date(now).toISOString(),
      signs_from: new Date(signsFrom).toISOString(),
    },
  ];
}

/** The schedule with `first` added, signing at once: the first key there is, or a key nobody published. */
export function withFirstKey(keys: PublishedKey[], first: JWK, now: number): PublishedKey[] {
  const stamp = new Date(now).toISOString();
  return [...liveKeys(keys, now), { jwk: publicJwk(first), published_at: stamp, signs_from: stamp }];
}
