import type { JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { PublishedKeySet } from '#lib/auth/published-key-set.ts';
import {
  liveKeys,
  PUBLISH_LEAD_SECONDS,
  pendingKey,
  RETIRE_AFTER_SECONDS,
  signingKid,
  withFirstKey,
  withRotatedKey,
} from '#lib/oauth/key-schedule.ts';
import { ACCESS_TOKEN_MAX_SECONDS } from '#lib/oauth/settings.ts';

const jwk = (kid: string): JWK => ({ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'private', kid });
const T0 = Date.parse('2026-03-01T12:00:00Z');
const minutes = (n: number) => n * 60_000;

describe('the signing-key schedule', () => {
  const first = withFirstKey([], jwk('a'), T0);
  const rotated = withRotatedKey(first, jwk('b'), T0 + minutes(60));
  const held = new Set(['a', 'b']);

  it('publishes only the public part, and the first key signs at once', () => {
    expect(first[0]?.jwk).toEqual({
      kty: 'EC',
      crv: 'P-256',
      x: 'x',
      y: 'y',
      kid: 'a',
      alg: 'ES256',
      use: 'sig',
    });
    expect(signingKid(first, new Set(['a']), T0)).toBe('a');
  });

  it('keeps signing with the old key until the new one has been published for the lead time', () => {
    const publishedAt = T0 + minutes(60);
    expect(pendingKey(rotated, publishedAt)?.jwk.kid).toBe('b');
    expect(signingKid(rotated, held, publishedAt + PUBLISH_LEAD_SECONDS * 1000 - 1)).toBe('a');
    expect(signingKid(rotated, held, publishedAt + PUBLISH_LEAD_SECONDS * 1000)).toBe('b');
    expect(PUBLISH_LEAD_SECONDS).toBeGreaterThan(300);
  });

  it('never signs with a key whose private part is not held (a stale copy of the secret)', () => {
    const afterSwitch = T0 + minutes(60) + PUBLISH_LEAD_SECONDS * 1000;
    expect(signingKid(rotated, new Set(['a']), afterSwitch)).toBe('a');
    expect(signingKid(rotated, new Set(['c']), afterSwitch)).toBeUndefined();
  });

  it('retires the old key only after every token it can have signed has expired', () => {
    const switchAt = T0 + minutes(60) + PUBLISH_LEAD_SECONDS * 1000;
    const retiresAt = Date.parse(rotated[0]?.retires_at ?? '');
    expect(retiresAt).toBe(switchAt + RETIRE_AFTER_SECONDS * 1000);
    expect(retiresAt - switchAt).toBeGreaterThan(ACCESS_TOKEN_MAX_SECONDS * 1000);
    expect(liveKeys(rotated, retiresAt - 1).map((key) => key.jwk.kid)).toEqual(['a', 'b']);
    expect(liveKeys(rotated, retiresAt).map((key) => key.jwk.kid)).toEqual(['b']);
    // Too close to retiring to outlive a token signed now: the old key is not chosen, even alone.
    expect(signingKid(rotated, new Set(['a']), retiresAt - 60_000)).toBeUndefined();
  });

  it('drops retired keys on the next rotation', () => {
    const later = Date.parse(rotated[0]?.retires_at ?? '') + 1;
    const again = withRotatedKey(rotated, jwk('c'), later);
    expect(again.map((key) => key.jwk.kid)).toEqual(['b', 'c']);
  });
});

describe('a resource server’s copy of the published keys', () => {
  const keys = withFirstKey([], jwk('a'), T0);

  it('reads when it has nothing, then not again for a known kid until it is stale', () => {
    const set = new PublishedKeySet({ maxAgeMs: minutes(5), cooldownMs: 30_000 });
    expect(set.shouldRead('a', T0)).toBe(true);
    set.accept(keys, T0);
    expect(set.shouldRead('a', T0 + minutes(5) - 1)).toBe(false);
    expect(set.shouldRead('a', T0 + minutes(5))).toBe(true);
  });

  it('reads for an unknown kid at once, then at most once per cooldown', () => {
    const set = new PublishedKeySet({ maxAgeMs: minutes(5), cooldownMs: 30_000 });
    set.accept(keys, T0);
    expect(set.shouldRead('new', T0 + 1_000)).toBe(true);
    expect(set.shouldRead('other', T0 + 2_000)).toBe(false);
    expect(set.shouldRead('other', T0 + 31_000)).toBe(true);
  });

  it('keeps the last good keys when a read brings nothing (nothing accepted)', () => {
    const set = new PublishedKeySet({ maxAgeMs: minutes(5), cooldownMs: 30_000 });
    set.accept(keys, T0);
    expect(set.shouldRead('a', T0 + minutes(6))).toBe(true);
    expect(set.has('a', T0 + minutes(6))).toBe(true);
    expect(set.loaded).toBe(true);
  });
});
