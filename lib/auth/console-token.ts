import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';
import { isJwksUnreachable } from '#lib/auth/jwks-unreachable.ts';
import { type Authenticator, bearerToken, type UserPrincipal } from '#lib/auth/principal.ts';
import { userIdFor } from '#lib/auth/user-id.ts';
import { optionalEnv, requiredEnv } from '#lib/config/env.ts';
import { ServiceUnavailableError, UnauthorizedError } from '#lib/http/errors.ts';

const CHALLENGE = 'Bearer realm="business-platform"';
const INVALID_TOKEN = `${CHALLENGE}, error="invalid_token"`;

interface Verifier {
  issuer: string;
  audience: string;
  jwks: ReturnType<typeof createRemoteJWKSet>;
}

let verifier: Verifier | undefined;

/**
 * JWT_ISSUER: the `iss` every token must carry (Cognito user pool URL, or the local dev issuer).
 * JWT_AUDIENCE: the app client id; matched against `aud` (ID tokens) or `client_id` (Cognito
 * access tokens). JWKS_URL: defaults to the issuer's /.well-known/jwks.json, as Cognito serves it.
 */
function loadVerifier(): Verifier {
  const issuer = requiredEnv('JWT_ISSUER');
  const jwksUrl = optionalEnv('JWKS_URL') ?? `${issuer.replace(/\/$/, '')}/.well-known/jwks.json`;
  return {
    issuer,
    audience: requiredEnv('JWT_AUDIENCE'),
    jwks: createRemoteJWKSet(new URL(jwksUrl), { timeoutDuration: 3_000, cooldownDuration: 30_000 }),
  };
}

function audienceMatches(payload: JWTPayload, audience: string): boolean {
  const aud = payload.aud;
  if (aud !== undefined) return Array.isArray(aud) ? aud.includes(audience) : aud === audience;
  return payload.client_id === audience;
}

/** Verify a console JWT (signature via JWKS, iss, aud/client_id, exp) and describe its user. */
export async function verifyConsoleToken(token: string): Promise<UserPrincipal> {
  verifier ??= loadVerifier();
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, verifier.jwks, {
      issuer: verifier.issuer,
      algorithms: ['RS256', 'ES256'],
      requiredClaims: ['sub', 'exp'],
      clockTolerance: 5,
    }));
  } catch (error) {
    if (isJwksUnreachable(error)) {
      throw new ServiceUnavailableError('The identity provider could not be reached; retry shortly');
    }
    if (error instanceof errors.JWTExpired)
      throw new UnauthorizedError('The token has expired', INVALID_TOKEN);
    if (error instanceof errors.JOSEError)
      throw new UnauthorizedError('The token is not valid', INVALID_TOKEN);
    throw error;
  }
  if (!audienceMatches(payload, verifier.audience)) {
    throw new UnauthorizedError('The token was issued for another audience', INVALID_TOKEN);
  }
  const subject = payload.sub as string;
  return {
    kind: 'user',
    userId: userIdFor(verifier.issuer, subject),
    issuer: verifier.issuer,
    subject,
    email: typeof payload.email === 'string' ? payload.email : undefined,
    emailVerified: payload.email_verified === true || payload.email_verified === 'true',
  };
}

/** Console users: `authorization: Bearer <JWT>`. */
export const consoleAuth: Authenticator<UserPrincipal> = {
  kind: 'console',
  prepare() {
    verifier ??= loadVerifier();
  },
  async authenticate(headers) {
    const token = bearerToken(headers);
    if (!token) throw new UnauthorizedError('Send a bearer token in the authorization header', CHALLENGE);
    return verifyConsoleToken(token);
  },
};
