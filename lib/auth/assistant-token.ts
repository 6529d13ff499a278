import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt, errors, type JWTPayload, jwtVerify } from 'jose';
import { consoleAuth, verifyConsoleToken } from '#lib/auth/console-token.ts';
import { isJwksUnreachable } from '#lib/auth/jwks-unreachable.ts';
import {
  type AssistantPrincipal,
  type Authenticator,
  bearerToken,
  type UserPrincipal,
} from '#lib/auth/principal.ts';
import { remoteKeySet } from '#lib/auth/remote-key-set.ts';
import { optionalEnv } from '#lib/config/env.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { HttpError, ServiceUnavailableError, UnauthorizedError } from '#lib/http/errors.ts';
import { issuer, resourceChallenge, resources } from '#lib/oauth/settings.ts';

/**
 * Access tokens of our own authorization server (DESIGN §9): ES256 JWTs checked against the
 * published JWKS, for exactly one resource (`aud`), naming a grant that must not be revoked (one
 * GetItem, so a revoked grant stops at once, like a revoked agent key).
 */
let jwks: ReturnType<typeof remoteKeySet> | undefined;

function keySet() {
  jwks ??= remoteKeySet(new URL(optionalEnv('OAUTH_JWKS_URL') ?? `${issuer()}/oauth/jwks`), {
    timeoutMs: 3_000,
    cooldownMs: 30_000,
  });
  return jwks;
}

export async function verifyAssistantToken(
  token: string,
  resource: string,
  challenge: string,
): Promise<AssistantPrincipal> {
  const invalid = (message: string) => new UnauthorizedError(message, `${challenge}, error="invalid_token"`);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keySet(), {
      issuer: issuer(),
      audience: resource,
      algorithms: ['ES256'],
      typ: 'at+jwt',
      requiredClaims: ['sub', 'exp', 'client_id', 'scope', 'gid'],
      clockTolerance: 5,
    }));
  } catch (error) {
    if (isJwksUnreachable(error)) {
      throw new ServiceUnavailableError('The token keys could not be loaded; retry shortly');
    }
    if (error instanceof errors.JWTExpired) throw invalid('The access token has expired');
    if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'aud') {
      throw invalid('The access token was issued for another resource');
    }
    if (error instanceof errors.JOSEError) throw invalid('The access token is not valid');
    throw error;
  }
  const grantId = String(payload.gid);
  const { Item } = await dynamo.send(new GetCommand({ TableName: tableName, Key: keys.oauthGrant(grantId) }));
  if (!Item || Item.revoked_at) throw invalid('The access was revoked; sign in again');
  return {
    kind: 'assistant',
    userId: String(payload.sub),
    clientId: String(payload.client_id),
    scopes: String(payload.scope).split(' ').filter(Boolean),
    grantId,
  };
}

/** 403 insufficient_scope (RFC 6750 §3.1) naming the scope the operation needs. */
export function assertScope(
  principal: AssistantPrincipal,
  scope: string | undefined,
  challenge: string,
): void {
  if (scope === undefined || principal.scopes.includes(scope)) return;
  throw new HttpError(403, 'FORBIDDEN', `This operation needs the ${scope} scope`, undefined, {
    'www-authenticate': `${challenge.replace(/, scope="[^"]*"/, '')}, error="insufficient_scope", scope="${scope}"`,
  });
}

/** Whether a bearer token claims to come from our authorization server (checked properly later). */
function claimsOurIssuer(token: string): boolean {
  try {
    return decodeJwt(token).iss === issuer();
  } catch {
    return false;
  }
}

/**
 * The edits API's credential: a console JWT, or an assistant's access token for the edits
 * resource with the operation's scope. Every 401 points at the resource's metadata (RFC 9728).
 */
export const editsAuth: Authenticator<UserPrincipal | AssistantPrincipal> = {
  kind: 'edits',
  prepare() {
    consoleAuth.prepare();
    issuer();
  },
  async authenticate(headers, request) {
    const resource = resources().edits;
    const challenge = resourceChallenge(resource);
    const token = bearerToken(headers);
    if (!token) throw new UnauthorizedError('Send a bearer token in the authorization header', challenge);
    if (claimsOurIssuer(token)) {
      const principal = await verifyAssistantToken(token, resource, challenge);
      assertScope(principal, request?.oauthScope, challenge);
      return principal;
    }
    try {
      return await verifyConsoleToken(token);
    } catch (error) {
      if (error instanceof UnauthorizedError) {
        throw new UnauthorizedError(error.message, `${challenge}, error="invalid_token"`);
      }
      throw error;
    }
  },
};

/** The tool server's credential: an assistant's access token for `<issuer>/mcp` (DESIGN §10). */
export const mcpAuth: Authenticator<AssistantPrincipal> = {
  kind: 'mcp',
  prepare() {
    issuer();
  },
  async authenticate(headers) {
    const resource = resources().mcp;
    const challenge = resourceChallenge(resource);
    const token = bearerToken(headers);
    if (!token) throw new UnauthorizedError('Send a bearer token in the authorization header', challenge);
    return verifyAssistantToken(token, resource, challenge);
  },
};
