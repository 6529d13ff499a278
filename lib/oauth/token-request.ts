import { OAuthError } from '#lib/http/errors.ts';
import { canonicalResource } from '#lib/oauth/settings.ts';

/** A request to POST /oauth/token, either grant type (lib/oauth/tokens.ts). */
export interface TokenRequest {
  grant_type: string;
  code?: string | undefined;
  redirect_uri?: string | undefined;
  code_verifier?: string | undefined;
  client_id: string;
  refresh_token?: string | undefined;
  resource?: string | undefined;
  scope?: string | undefined;
}

export const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);

/** `resource` at the token endpoint is optional; when sent it must be the one the grant is for. */
export function assertSameResource(requested: string | undefined, granted: string): void {
  if (requested === undefined) return;
  if (canonicalResource(requested) !== granted) {
    throw new OAuthError('invalid_target', 'resource differs from the one that was authorized');
  }
}
