import { publicAccess } from '#lib/auth/public-access.ts';
import { formBody } from '#lib/http/form-body.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { startedAhead } from '#lib/http/started-ahead.ts';
import { admitSource } from '#lib/oauth/endpoint-limits.ts';
import { issueTokens } from '#lib/oauth/tokens.ts';
import { oauthRoutes } from '#lib/routes/oauth.ts';

export const handler = httpHandler(
  oauthRoutes.issueOAuthToken,
  publicAccess,
  async ({ body, principal }) => {
    const admitted = startedAhead(admitSource('token', principal.sourceIp));
    return { data: await issueTokens(body, admitted), headers: { pragma: 'no-cache' } };
  },
  { bodyParser: formBody },
);
