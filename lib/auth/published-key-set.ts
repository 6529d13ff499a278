import { createLocalJWKSet, type JWTVerifyGetKey } from 'jose';
import { KEY_SET_CACHE_SECONDS, liveKeys, type PublishedKey } from '#lib/oauth/key-schedule.ts';

/**
 * A resource server's copy of the published access-token keys, kept per container. It decides
 * when the published-keys item must be read (the caller reads it together with the grant, so the
 * read costs no round trip of its own) and keeps the last good keys when a read fails:
 * - no keys yet, or older than `maxAgeMs`: read;
 * - a token names a kid the copy does not have: read, at most once per `cooldownMs` (a rotated-in
 *   key; anyone can send a token with a made-up kid, so this must not read on every request);
 * - a read that failed or found nothing usable leaves the copy as it was.
 */
export interface PublishedKeySetOptions {
  maxAgeMs?: number;
  cooldownMs?: number;
}

export class PublishedKeySet {
  private keys: PublishedKey[] | undefined;
  private readAt = 0;
  private unknownKidReadAt: number | undefined;
  private local: JWTVerifyGetKey | undefined;
  private readonly maxAgeMs: number;
  private readonly cooldownMs: number;

  constructor({ maxAgeMs = KEY_SET_CACHE_SECONDS * 1000, cooldownMs = 30_000 }: PublishedKeySetOptions = {}) {
    this.maxAgeMs = maxAgeMs;
    this.cooldownMs = cooldownMs;
  }

  /** Whether `kid` is among the live keys held now. */
  has(kid: string | undefined, now: number): boolean {
    return kid !== undefined && liveKeys(this.keys ?? [], now).some((key) => key.jwk.kid === kid);
  }

  /** Whether a token naming `kid` should have the item read first; counts an unknown-kid read. */
  shouldRead(kid: string | undefined, now: number): boolean {
    if (this.keys === undefined || now - this.readAt >= this.maxAgeMs) return true;
    if (this.has(kid, now)) return false;
    if (this.unknownKidReadAt !== undefined && now - this.unknownKidReadAt < this.cooldownMs) return false;
    this.unknownKidReadAt = now;
    return true;
  }

  /** A read that found the item: it replaces the copy. */
  accept(keys: PublishedKey[], now: number): void {
    this.keys = keys;
    this.readAt = now;
    this.local = undefined;
  }

  /** Whether any keys were ever loaded (none: a token cannot be judged, which is not its fault). */
  get loaded(): boolean {
    return this.keys !== undefined;
  }

  /** The key lookup jwtVerify uses: the live keys of the copy. */
  getKey(now: number): JWTVerifyGetKey {
    this.local ??= createLocalJWKSet({ keys: liveKeys(this.keys ?? [], now).map((key) => key.jwk) });
    return this.local;
  }
}
