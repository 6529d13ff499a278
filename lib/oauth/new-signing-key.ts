import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';

/** Access tokens are ES256 JWTs. */
export const SIGNING_ALGORITHM = 'ES256';

/** A new private signing key with a fresh kid (no I/O: the harness calls it before the table exists). */
export async function generateSigningKey(): Promise<JWK & { kid: string }> {
  const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: SIGNING_ALGORITHM };
}

/** The private keys' stored form with one key, as the harness and the token endpoint's bootstrap write it. */
export async function generateSigningKeys(): Promise<{ current: JWK & { kid: string } }> {
  return { current: await generateSigningKey() };
}
