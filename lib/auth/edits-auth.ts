import { decodeJwt } from 'jose';
import { assertScope, verifyAssistantToken } from '#lib/auth/assistant-token.ts';
import { consoleAuth, verifyConsoleToken } from '#lib/auth/console-token.ts';
import {
  type AssistantPrincipal,
  type Authenticator,
  bearerToken,
  type UserPrincipal,
} from '#lib/auth/principal.ts';
import { UnauthorizedError } from '#lib/http/errors.ts';
import { issuer, resourceChallenge, resources } from '#lib/oauth/settings.ts';

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
