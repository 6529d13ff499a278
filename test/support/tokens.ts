import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import { inject } from 'vitest';
import {
  cognitoAccessTokenClaims,
  type DevIssuer,
  LOCAL_AUDIENCE,
  LOCAL_ISSUER,
  loadDevIssuer,
  localSubject,
} from '../../infra/local/dev-issuer.ts';

let devIssuer: Promise<DevIssuer> | undefined;

/** The harness's own dev issuer (its key lives in the harness's state folder). */
export function issuer(): Promise<DevIssuer> {
  devIssuer ??= loadDevIssuer(inject('harness').stateDir);
  return devIssuer;
}

export interface TokenOverrides {
  issuer?: string;
  /** The app client id (`client_id`). */
  audience?: string;
  /** Cognito's `token_use` ('id' for an ID token, which the service refuses). */
  tokenUse?: string;
  /** Seconds from now; negative = already expired. */
  expiresIn?: number;
  /** Sign with a key the service has never seen, under the real key id. */
  foreignKey?: boolean;
}

/** A token like the dev issuer's (a Cognito-shaped access token), with one thing wrong, for the 401 cases. */
export async function craftToken(email: string, overrides: TokenOverrides): Promise<string> {
  const jwk = JSON.parse(readFileSync(join(inject('harness').stateDir, 'issuer-key.json'), 'utf8')) as JWK;
  const key = overrides.foreignKey
    ? (await generateKeyPair('ES256')).privateKey
    : await importJWK(jwk, 'ES256');
  const now = Math.floor(Date.now() / 1000);
  const claims = cognitoAccessTokenClaims({
    subject: localSubject(email),
    clientId: overrides.audience ?? LOCAL_AUDIENCE,
    email,
  });
  return new SignJWT({ ...claims, ...(overrides.tokenUse ? { token_use: overrides.tokenUse } : {}) })
    .setProtectedHeader({ alg: 'ES256', kid: jwk.kid ?? '' })
    .setIssuer(overrides.issuer ?? LOCAL_ISSUER)
    .setSubject(localSubject(email))
    .setIssuedAt(now - 3600)
    .setExpirationTime(now + (overrides.expiresIn ?? 3600))
    .sign(key);
}
