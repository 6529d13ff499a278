import { errors, type JWTPayload, jwtVerify } from 'jose';
import { isJwksUnreachable } from '#lib/auth/jwks-unreachable.ts';
import { type Authenticator, bearerToken, type UserPrincipal } from '#lib/auth/principal.ts';
import { PublicKeySet } from '#lib/auth/public-key-set.ts';
import { remoteKeySet } from '#lib/auth/remote-key-set.ts';
import { userIdFor } from '#lib/auth/user-id.ts';
import { optionalEnv, requiredEnv } from '#lib/config/env.ts';
import { ServiceUnavailableError, UnauthorizedError } from '#lib/http/errors.ts';
import * as z from '#lib/validation/zod.ts';

const CHALLENGE = 'Bearer realm="business-platform"';
const INVALID_TOKEN = `${CHALLENGE}, error="invalid_token"`;

/**
 * 'cognito' (the default; Cognito in AWS, the dev issuer locally): only access tokens
 * (`token_use: 'access'`) of our app client (`client_id`; they carry no `aud`). 'oidc' (another
 * issuer, CDK context `issuer`): an access token naming the audience in `aud` or `client_id`.
 */
type TokenProfile = 'cognito' | 'oidc';

interface Verifier {
  issuer: string;
  audience: string;
  profile: TokenProfile;
  jwks: ReturnType<typeof remoteKeySet>;
}

let verifier: Verifier | undefined;

/** JWT_KEY_SET, when set: the issuer's key set as deployment found it ('{"keys":[]}' is none). */
function seedKeySet(): PublicKeySet | undefined {
  const raw = optionalEnv('JWT_KEY_SET');
  if (raw === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new Error('JWT_KEY_SET must be a JSON Web Key Set ({"keys": [...]}); it is not JSON');
  }
  const parsed = z.safeParse(PublicKeySet, json);
  if (!parsed.success) {
    const where = parsed.error.issues.map((issue) => issue.path.join('.') || '(root)').join(', ');
    throw new Error(`JWT_KEY_SET must be a JSON Web Key Set ({"keys": [...]}); wrong at: ${where}`);
  }
  return parsed.data;
}

/**
 * JWT_ISSUER: the `iss` every token must carry (Cognito user pool URL, or the local dev issuer).
 * JWT_AUDIENCE: the app client id. JWT_PROFILE: 'cognito' (default) or 'oidc', see TokenProfile.
 * JWKS_URL: defaults to the issuer's /.well-known/jwks.json, as Cognito serves it.
 * JWT_KEY_SET (optional): the issuer's public keys, fetched at deployment, so a cold start verifies
 * without a request; a key it lacks is still fetched from JWKS_URL (lib/auth/remote-key-set.ts).
 */
function loadVerifier(): Verifier {
  const issuer = requiredEnv('JWT_ISSUER');
  const jwksUrl = optionalEnv('JWKS_URL') ?? `${issuer.replace(/\/$/, '')}/.well-known/jwks.json`;
  const profile = optionalEnv('JWT_PROFILE') ?? 'cognito';
  if (profile !== 'cognito' && profile !== 'oidc') throw new Error('JWT_PROFILE must be cognito or oidc');
  return {
    issuer,
    audience: requiredEnv('JWT_AUDIENCE'),
    profile,
    jwks: remoteKeySet(new URL(jwksUrl), { timeoutMs: 3_000, cooldownMs: 30_000, seed: seedKeySet() }),
  };
}

/** Is this a token of the kind the profile accepts, for our client? Throws 401 when not. */
function assertAccessTokenForUs(payload: JWTPayload, { profile, audience }: Verifier): void {
  if (profile === 'cognito') {
    // Cognito's ID tokens carry `aud` and no scope; only access tokens are credentials for an API.
    if (payload.token_use !== 'access') {
      throw new UnauthorizedError('Send an access token (token_use "access")', INVALID_TOKEN);
    }
    if (payload.client_id !== audience) {
      throw new UnauthorizedError('The token was issued for another client', INVALID_TOKEN);
    }
    return;
  }
  const aud = payload.aud;
  const matches =
    aud !== undefined
      ? Array.isArray(aud)
        ? aud.includes(audience)
        : aud === audience
      : payload.client_id === audience;
  if (!matches) throw new UnauthorizedError('The token was issued for another audience', INVALID_TOKEN);
}

/**
 * Verify a console JWT (signature via JWKS, iss, exp, token kind and client) and describe its
 * user. The e-mail claims come from the Pre Token Generation trigger (Cognito puts none in access
 * tokens); Cognito writes `email_verified` as a string, other issuers as a boolean.
 */
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
      throw new ServiceUnavailableError(
        'The identity provider could not be reached; retry shortly',
        'identity_provider',
      );
    }
    if (error instanceof errors.JWTExpired)
      throw new UnauthorizedError('The token has expired', INVALID_TOKEN);
    if (error instanceof errors.JOSEError)
      throw new UnauthorizedError('The token is not valid', INVALID_TOKEN);
    throw error;
  }
  assertAccessTokenForUs(payload, verifier);
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
