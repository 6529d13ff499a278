import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import { userIdFor } from '#lib/auth/user-id.ts';
import { normaliseEmail } from '#lib/db/keys.ts';

/**
 * The local stand-in for Cognito. Its issuer is a fixed identifier (not the harness URL), so user
 * ids derived from it survive a restart on another port; its JWKS is served by the harness and
 * checked by the very code that checks Cognito's tokens in AWS. Its tokens are shaped like
 * Cognito's access tokens with our Pre Token Generation trigger's claims (see
 * cognitoAccessTokenClaims), so the local path is the deployed one.
 */
export const LOCAL_ISSUER = 'https://local-issuer.invalid';
/** Where the harness serves the dev issuer's keys and sign-in endpoints. */
export const ISSUER_PATH = '/local-issuer';
/** The app client id: Cognito access tokens carry it as `client_id` (they have no `aud`). */
export const LOCAL_AUDIENCE = 'business-platform-console';

/**
 * The claims of a Cognito user pool access token (besides iss, sub, iat, exp): `token_use`,
 * `client_id`, `scope`, `username`, the ids Cognito adds, no `aud`; plus the `email` and
 * `email_verified` our Pre Token Generation trigger adds (functions/triggers/).
 */
export function cognitoAccessTokenClaims(input: {
  subject: string;
  clientId: string;
  email?: string;
  emailVerified?: boolean;
}): Record<string, unknown> {
  return {
    token_use: 'access',
    client_id: input.clientId,
    scope: 'openid email profile',
    username: input.subject,
    auth_time: Math.floor(Date.now() / 1000),
    jti: randomUUID(),
    origin_jti: randomUUID(),
    event_id: randomUUID(),
    ...(input.email === undefined
      ? {}
      : { email: input.email, email_verified: String(input.emailVerified ?? true) }),
  };
}
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
      const claims = cognitoAccessTokenClaims({
        subject: localSubject(email),
        clientId: LOCAL_AUDIENCE,
        email: normaliseEmail(email),
        emailVerified,
      });
      return new SignJWT(claims)
        .setProtectedHeader({ alg: ALGORITHM, kid: privateJwk.kid ?? '' })
        .setIssuer(LOCAL_ISSUER)
        .setSubject(localSubject(email))
        .setIssuedAt()
        .setExpirationTime(`${hours}h`)
        .sign(signingKey);
    },
  };
}
