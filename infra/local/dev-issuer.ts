import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import { userIdFor } from '#lib/auth/user-id.ts';
import { normaliseEmail } from '#lib/db/keys.ts';

/**
 * The local stand-in for Cognito. Its issuer is a fixed identifier (not the harness URL), so user
 * ids derived from it survive a restart on another port; its JWKS is served by the harness and
 * checked by the very code that checks Cognito's tokens in AWS.
 */
export const LOCAL_ISSUER = 'https://local-issuer.invalid';
export const LOCAL_AUDIENCE = 'business-platform-console';
const ALGORITHM = 'ES256';

export interface DevIssuer {
  jwks: { keys: JWK[] };
  mintToken(input: { email: string; hours?: number; emailVerified?: boolean }): Promise<string>;
}

/** The subject the dev issuer gives an e-mail address (Cognito would give a UUID). */
export const localSubject = (email: string) => `local|${normaliseEmail(email)}`;

/** The user id the service will derive for a local e-mail address. */
export const localUserId = (email: string) => userIdFor(LOCAL_ISSUER, localSubject(email));

/** Load the signing key from `<stateDir>/issuer-key.json`, creating it on first use. */
export async function loadDevIssuer(stateDir: string): Promise<DevIssuer> {
  const file = join(stateDir, 'issuer-key.json');
  let privateJwk: JWK;
  if (existsSync(file)) {
    privateJwk = JSON.parse(readFileSync(file, 'utf8')) as JWK;
  } else {
    const { privateKey } = await generateKeyPair(ALGORITHM, { extractable: true });
    privateJwk = { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: ALGORITHM, use: 'sig' };
    writeFileSync(file, JSON.stringify(privateJwk), { mode: 0o600 });
  }
  const { d: _private, ...publicJwk } = privateJwk;
  const signingKey = await importJWK(privateJwk, ALGORITHM);
  return {
    jwks: { keys: [publicJwk] },
    async mintToken({ email, hours = 24 * 7, emailVerified = true }) {
      return new SignJWT({ email: normaliseEmail(email), email_verified: emailVerified, token_use: 'id' })
        .setProtectedHeader({ alg: ALGORITHM, kid: privateJwk.kid ?? '' })
        .setIssuer(LOCAL_ISSUER)
        .setAudience(LOCAL_AUDIENCE)
        .setSubject(localSubject(email))
        .setIssuedAt()
        .setExpirationTime(`${hours}h`)
        .sign(signingKey);
    },
  };
}
