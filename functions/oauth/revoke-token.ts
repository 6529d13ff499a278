import { publicAccess } from '#lib/auth/public-access.ts';
import { formBody } from '#lib/http/form-body.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { admitSource } from '#lib/oauth/endpoint-limits.ts';
import { revokeToken } from '#lib/oauth/revocation.ts';
import { oauthRoutes } from '#lib/routes/oauth.ts';

export const handler = httpHandler(
  oauthRoutes.revokeOAuthToken,
  publicAccess,
  async ({ body, principal }) => {
    await admitSource('revoke', principal.sourceIp);
    await revokeToken(body);
    return { raw: { statusCode: 200 } };
  },
  { bodyParser: formBody },
);
