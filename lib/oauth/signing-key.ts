import { randomUUID } from 'node:crypto';
import { PutSecretValueCommand, ResourceExistsException } from '@aws-sdk/client-secrets-manager';
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import { optionalEnv } from '#lib/config/env.ts';
import { secrets, secretsManager } from '#lib/config/secrets.ts';

/**
 * The key that signs access tokens (ES256). In AWS it is a Secrets Manager secret
 * (OAUTH_SIGNING_KEY_SECRET_ID) holding `{"current": <private JWK>, "previous"?: <private JWK>}`:
 * `current` signs, both are published, so a key can be rotated without failing live tokens.
 * Locally OAUTH_SIGNING_KEY holds the same JSON (the harness keeps it in `.local/`).
 *
 * CDK creates the secret empty (Secrets Manager cannot generate an EC key); the token endpoint
 * puts the first key there when it first needs one. Every bootstrapping function writes with the
 * same ClientRequestToken, so concurrent first writes cannot both succeed: the losers read back
 * the winner's key.
 */
export const SIGNING_ALGORITHM = 'ES256';
const SECRET_CACHE_SECONDS = 300;
const BOOTSTRAP_REQUEST_TOKEN = 'oauth-signing-key-bootstrap-00000000000001';

interface SigningKeys {
  current: JWK;
  previous?: JWK;
}

const hasPrivateKey = (keys: Partial<SigningKeys>): keys is SigningKeys =>
  Boolean(keys.current?.d && keys.current.kid);

async function readKeys(forceFetch = false): Promise<Partial<SigningKeys>> {
  const secretId = optionalEnv('OAUTH_SIGNING_KEY_SECRET_ID');
  const raw = secretId
    ? await secrets.get(secretId, { maxAge: SECRET_CACHE_SECONDS, forceFetch })
    : optionalEnv('OAUTH_SIGNING_KEY');
  if (typeof raw !== 'string') throw new Error('Set OAUTH_SIGNING_KEY_SECRET_ID or OAUTH_SIGNING_KEY');
  return JSON.parse(raw) as Partial<SigningKeys>;
}

/** The signing keys, creating the first one in an empty secret (the token endpoint only). */
async function signingKeys(): Promise<SigningKeys> {
  const keys = await readKeys();
  if (hasPrivateKey(keys)) return keys;
  const secretId = optionalEnv('OAUTH_SIGNING_KEY_SECRET_ID');
  if (!secretId) throw new Error('OAUTH_SIGNING_KEY holds no private key with a kid under "current"');
  try {
    await secretsManager.send(
      new PutSecretValueCommand({
        SecretId: secretId,
        SecretString: JSON.stringify(await generateSigningKeys()),
        ClientRequestToken: BOOTSTRAP_REQUEST_TOKEN,
      }),
    );
  } catch (error) {
    // Another instance bootstrapped first (same request token, other content): use its key.
    if (!(error instanceof ResourceExistsException)) throw error;
  }
  const created = await readKeys(true);
  if (!hasPrivateKey(created)) throw new Error('The OAuth signing key secret holds no usable key');
  return created;
}

const publicPart = ({ d: _private, ...jwk }: JWK): JWK => ({ ...jwk, alg: SIGNING_ALGORITHM, use: 'sig' });

/** The published key set (current and previous public keys); empty until the first token is issued. */
export async function publicJwks(): Promise<{ keys: JWK[] }> {
  const { current, previous } = await readKeys();
  return { keys: [current, previous].filter((key): key is JWK => key?.kid !== undefined).map(publicPart) };
}

/** Sign an access token (RFC 9068 `at+jwt`) with the current key. */
export async function signAccessToken(
  claims: Record<string, unknown>,
  options: { issuer: string; audience: string; subject: string; expiresInSeconds: number },
): Promise<string> {
  const { current } = await signingKeys();
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
