import { publicAccess } from '#lib/auth/public-access.ts';
import { formBody } from '#lib/http/form-body.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { issueTokens } from '#lib/oauth/tokens.ts';
import { oauthRoutes } from '#lib/routes/oauth.ts';

export const handler = httpHandler(
  oauthRoutes.issueOAuthToken,
  publicAccess,
  async ({ body }) => ({ data: await issueTokens(body), headers: { pragma: 'no-cache' } }),
  { bodyParser: formBody },
);
