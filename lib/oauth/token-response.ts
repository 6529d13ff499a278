import { randomBytes } from 'node:crypto';
import type { JWK } from 'jose';
import { accessTokenSeconds, issuer } from '#lib/oauth/settings.ts';
import { signAccessToken } from '#lib/oauth/signing-key.ts';
import type { RefreshItem } from '#lib/oauth/token-items.ts';

/**
 * The token endpoint's answer, for either grant type: a 15-minute access token naming its grant
 * (`gid`), signed with the key read ahead, and the refresh token when the grant has one.
 */
export async function tokenResponse(
  grant: RefreshItem,
  scopes: string[],
  refreshToken: string | undefined,
  signingKey: Promise<JWK>,
) {
  const scope = scopes.join(' ');
  const accessToken = await signAccessToken(
    { client_id: grant.client_id, scope, gid: grant.grant_id },
    {
      issuer: issuer(),
      audience: grant.resource,
      subject: grant.user_id,
      expiresInSeconds: accessTokenSeconds(),
    },
    signingKey,
  );
  return {
    access_token: accessToken,
    token_type: 'Bearer' as const,
    expires_in: accessTokenSeconds(),
    ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
    scope,
  };
}

export const newRefreshToken = () => `rt_${randomBytes(32).toString('base64url')}`;
