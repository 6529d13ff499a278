import type { JWK } from 'jose';
import {
  PUBLISH_LEAD_SECONDS,
  type PublishedKey,
  pendingKey,
  signingKid,
  withRotatedKey,
} from '#lib/oauth/key-schedule.ts';
import { generateSigningKey } from '#lib/oauth/new-signing-key.ts';
import { type PublishedKeys, readPublishedKeys, updatePublishedKeys } from '#lib/oauth/published-keys.ts';
import { readSigningKeys, writeSigningKeys } from '#lib/oauth/signing-key.ts';

/**
 * An operator's key rotation (`npm run oauth-keys -- rotate`), one run, no second step: a new
 * private key goes into the secret as `next` beside the key that signs now, then its public part
 * is published with `signs_from` = now + the lead (longer than every cache of the keys), and the
 * key it replaces gets `retires_at` (after the longest token it can still sign). From `signs_from`
 * on, every token endpoint signs with the new key by itself; nothing has to run again.
 *
 * The secret is written before the item: a run that fails between the two leaves a private key
 * that nothing publishes, so nothing signs with it, and the next run replaces it.
 */
export class RotationRefusedError extends Error {
  override name = 'RotationRefusedError';
}

export interface Rotation {
  kid: string;
  signsFrom: string;
  schedule: PublishedKey[];
}

export async function rotateSigningKey(options: { leadSeconds?: number } = {}): Promise<Rotation> {
  const leadSeconds = options.leadSeconds ?? PUBLISH_LEAD_SECONDS;
  const now = Date.now();
  const held = await readSigningKeys(true);
  const heldByKid = new Map(
    [held.current, held.next].flatMap((key) => (key?.kid && key.d ? [[key.kid, key]] : [])),
  );
  const next = await generateSigningKey();

  let refusal: string | undefined;
  let signingNow: JWK | undefined;
  const schedule = (stored: PublishedKeys | undefined) => {
    const keys = stored?.keys ?? [];
    const pending = pendingKey(keys, now);
    if (pending) {
      refusal = `key ${pending.jwk.kid} is already rotating in; it signs from ${pending.signs_from}`;
      return undefined;
    }
    const kid = signingKid(keys, new Set(heldByKid.keys()), now);
    signingNow = kid === undefined ? undefined : heldByKid.get(kid);
    if (!signingNow) {
      refusal =
        'no published key signs now: issue a token first (the token endpoint publishes the first key)';
      return undefined;
    }
    return withRotatedKey(keys, next, now, leadSeconds);
  };

  // Check the schedule before touching the secret; then secret first, item second.
  schedule(await readPublishedKeys());
  if (refusal || !signingNow) throw new RotationRefusedError(refusal ?? 'nothing signs now');
  await writeSigningKeys({ current: signingNow, next });
  const written = await updatePublishedKeys(schedule);
  if (refusal) throw new RotationRefusedError(refusal);
  const published = written?.keys.find((key) => key.jwk.kid === next.kid);
  if (!published) throw new RotationRefusedError('the new key was not published');
  return { kid: next.kid, signsFrom: published.signs_from, schedule: written?.keys ?? [] };
}
