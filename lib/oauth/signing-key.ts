import { randomUUID } from 'node:crypto';
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import { optionalEnv } from '#lib/config/env.ts';

/**
 * The key that signs access tokens (ES256). In AWS it is a Secrets Manager secret
 * (OAUTH_SIGNING_KEY_SECRET_ID) holding `{"current": <private JWK>, "previous"?: <private JWK>}`:
 * `current` signs, both are published, so a key can be rotated without failing live tokens.
 * Locally OAUTH_SIGNING_KEY holds the same JSON (the harness keeps it in `.local/`).
 */
export const SIGNING_ALGORITHM = 'ES256';
const SECRET_CACHE_SECONDS = 300;

interface SigningKeys {
  current: JWK;
  previous?: JWK;
}

async function loadKeys(): Promise<SigningKeys> {
  const secretId = optionalEnv('OAUTH_SIGNING_KEY_SECRET_ID');
  const raw = secretId
    ? await getSecret(secretId, { maxAge: SECRET_CACHE_SECONDS })
    : optionalEnv('OAUTH_SIGNING_KEY');
  if (typeof raw !== 'string') throw new Error('Set OAUTH_SIGNING_KEY_SECRET_ID or OAUTH_SIGNING_KEY');
  const keys = JSON.parse(raw) as Partial<SigningKeys>;
  if (!keys.current?.d || !keys.current.kid) {
    throw new Error('The OAuth signing key secret holds no private key with a kid under "current"');
  }
  return keys as SigningKeys;
}

const publicPart = ({ d: _private, ...jwk }: JWK): JWK => ({ ...jwk, alg: SIGNING_ALGORITHM, use: 'sig' });

/** The published key set (current and previous public keys). */
export async function publicJwks(): Promise<{ keys: JWK[] }> {
  const { current, previous } = await loadKeys();
  return { keys: [current, ...(previous ? [previous] : [])].map(publicPart) };
}

/** Sign an access token (RFC 9068 `at+jwt`) with the current key. */
export async function signAccessToken(
  claims: Record<string, unknown>,
  options: { issuer: string; audience: string; subject: string; expiresInSeconds: number },
): Promise<string> {
  const { current } = await loadKeys();
  const key = await importJWK(current, SIGNING_ALGORITHM);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: current.kid ?? '', typ: 'at+jwt' })
    .setIssuer(options.issuer)
    .setAudience(options.audience)
    .setSubject(options.subject)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime(`${options.expiresInSeconds}s`)
    .sign(key);
}

/** A new key set, as the harness and the deploy-time key generator store it. */
export async function generateSigningKeys(): Promise<SigningKeys> {
  const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  return { current: { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: SIGNING_ALGORITHM } };
}
