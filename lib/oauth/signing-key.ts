import { randomUUID } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { PutSecretValueCommand, ResourceExistsException } from '@aws-sdk/client-secrets-manager';
import { importJWK, type JWK, SignJWT } from 'jose';
import { optionalEnv } from '#lib/config/env.ts';
import { secretString, secretsManager } from '#lib/config/secrets.ts';
import { startedAhead } from '#lib/http/started-ahead.ts';
import { SIGNING_SECRET_CACHE_SECONDS, signingKid, withFirstKey } from '#lib/oauth/key-schedule.ts';
import { generateSigningKeys, SIGNING_ALGORITHM } from '#lib/oauth/new-signing-key.ts';
import { readPublishedKeys, updatePublishedKeys } from '#lib/oauth/published-keys.ts';

/**
 * The private keys that sign access tokens (ES256). In AWS they are a Secrets Manager secret
 * (OAUTH_SIGNING_KEY_SECRET_ID) holding `{"current": <private JWK>, "next"?: <private JWK>}`;
 * locally the same JSON is a file (OAUTH_SIGNING_KEY_FILE, `.local/oauth-signing-key.json`), read
 * on every use so that a rotation reaches the running stack.
 *
 * Which of them signs is not decided here but by the published-keys item (the schedule,
 * lib/oauth/key-schedule.ts): a key signs only once it is published, so every resource server can
 * verify the tokens it signs. CDK creates the secret empty (Secrets Manager cannot generate an EC
 * key); the token endpoint puts the first key there and publishes it before signing with it.
 * Every bootstrapping function writes with the same ClientRequestToken, so concurrent first writes
 * cannot both succeed: the losers read back the winner's key.
 */
const BOOTSTRAP_REQUEST_TOKEN = 'oauth-signing-key-bootstrap-00000000000001';

export interface SigningKeys {
  current: JWK;
  /** A key rotated in (lib/oauth/key-rotation.ts), signing from the time its schedule says. */
  next?: JWK;
}

const isPrivateKey = (key: JWK | undefined): key is JWK & { kid: string } => Boolean(key?.d && key.kid);
const hasPrivateKey = (keys: Partial<SigningKeys>): keys is SigningKeys => isPrivateKey(keys.current);

/** The private keys by kid. */
const heldKeys = (keys: Partial<SigningKeys>): Map<string, JWK> =>
  new Map([keys.current, keys.next].filter(isPrivateKey).map((key) => [key.kid, key]));

/** The stored private keys; `fresh` skips the secret's cache (a rotation, a bootstrap). */
export async function readSigningKeys(fresh = false): Promise<Partial<SigningKeys>> {
  const secretId = optionalEnv('OAUTH_SIGNING_KEY_SECRET_ID');
  const file = optionalEnv('OAUTH_SIGNING_KEY_FILE');
  const raw = secretId
    ? // The secret is created without a value: no keys until the first token bootstraps one.
      ((await secretString(secretId, { maxAge: SIGNING_SECRET_CACHE_SECONDS, forceFetch: fresh })) ?? '')
    : file && readFileSync(file, 'utf8');
  if (typeof raw !== 'string') throw new Error('Set OAUTH_SIGNING_KEY_SECRET_ID or OAUTH_SIGNING_KEY_FILE');
  return raw.trim() === '' ? {} : (JSON.parse(raw) as Partial<SigningKeys>);
}

/** Store the private keys (a new secret version, or the local file replaced whole). */
export async function writeSigningKeys(keys: SigningKeys, clientRequestToken?: string): Promise<void> {
  const secretId = optionalEnv('OAUTH_SIGNING_KEY_SECRET_ID');
  const body = JSON.stringify(keys);
  if (secretId) {
    await secretsManager().send(
      new PutSecretValueCommand({
        SecretId: secretId,
        SecretString: body,
        ...(clientRequestToken ? { ClientRequestToken: clientRequestToken } : {}),
      }),
    );
    return;
  }
  const file = optionalEnv('OAUTH_SIGNING_KEY_FILE');
  if (!file) throw new Error('Set OAUTH_SIGNING_KEY_SECRET_ID or OAUTH_SIGNING_KEY_FILE');
  writeFileSync(`${file}.tmp`, body, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/** The stored keys, creating the first one in an empty secret. */
async function bootstrappedKeys(): Promise<SigningKeys> {
  const keys = await readSigningKeys();
  if (hasPrivateKey(keys)) return keys;
  if (!optionalEnv('OAUTH_SIGNING_KEY_SECRET_ID'))
    throw new Error('OAUTH_SIGNING_KEY_FILE holds no private key with a kid under "current"');
  try {
    await writeSigningKeys(await generateSigningKeys(), BOOTSTRAP_REQUEST_TOKEN);
  } catch (error) {
    // Another instance bootstrapped first (same request token, other content): use its key.
    if (!(error instanceof ResourceExistsException)) throw error;
  }
  const created = await readSigningKeys(true);
  if (!hasPrivateKey(created)) throw new Error('The OAuth signing key secret holds no usable key');
  return created;
}

/**
 * The key that signs now, by the published schedule. When none of the keys held is published (the
 * first key; a secret from before the published-keys item), `current` is published first.
 */
async function keyToSignWith(): Promise<JWK> {
  const now = Date.now();
  let [held, published] = await Promise.all([bootstrappedKeys(), readPublishedKeys()]);
  let kid = signingKid(published?.keys ?? [], new Set(heldKeys(held).keys()), now);
  if (kid === undefined) {
    // The schedule may name a key our cached copy of the secret predates.
    held = (await readSigningKeys(true)) as SigningKeys;
    if (!hasPrivateKey(held)) throw new Error('The OAuth signing key secret holds no usable key');
    const current = held.current;
    published = await updatePublishedKeys((stored) => {
      const storedKeys = stored?.keys ?? [];
      if (signingKid(storedKeys, new Set(heldKeys(held).keys()), now) !== undefined) return undefined;
      if (storedKeys.some((key) => key.jwk.kid === current.kid)) return undefined;
      return withFirstKey(storedKeys, current, now);
    });
    kid = signingKid(published?.keys ?? [], new Set(heldKeys(held).keys()), now);
  }
  const key = kid === undefined ? undefined : heldKeys(held).get(kid);
  if (!key) throw new Error('No published signing key may sign now: run `npm run oauth-keys -- rotate`');
  return key;
}

/** Make sure a key we hold is published and may sign (the harness, before anything verifies a token). */
export async function ensureSigningKeyPublished(): Promise<void> {
  await keyToSignWith();
}

/**
 * The key that signs now, its reads started ahead of need: the token endpoint starts them beside
 * the request's own reads (they do not depend on it) and hands the result to `signAccessToken`.
 */
export function signingKeyAhead(): Promise<JWK> {
  return startedAhead(keyToSignWith());
}

/**
 * Sign an access token (RFC 9068 `at+jwt`) with the key the published schedule names (read now,
 * or `signingKey` from `signingKeyAhead`).
 */
export async function signAccessToken(
  claims: Record<string, unknown>,
  options: { issuer: string; audience: string; subject: string; expiresInSeconds: number },
  signingKey: Promise<JWK> = keyToSignWith(),
): Promise<string> {
  const jwk = await signingKey;
  const key = await importJWK(jwk, SIGNING_ALGORITHM);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: jwk.kid ?? '', typ: 'at+jwt' })
    .setIssuer(options.issuer)
    .setAudience(options.audience)
    .setSubject(options.subject)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime(`${options.expiresInSeconds}s`)
    .sign(key);
}
