import { publicAccess } from '#lib/auth/public-access.ts';
import type { HandlerOutput } from '#lib/http/pipeline.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { authorize } from '#lib/oauth/authorize.ts';
import { errorPage } from '#lib/oauth/error-page.ts';
import { oauthRoutes } from '#lib/routes/oauth.ts';

export const handler = httpHandler(
  oauthRoutes.authorizeOAuthClient,
  publicAccess,
  async ({ query }): Promise<HandlerOutput> => {
    const outcome = await authorize(query);
    if (outcome.kind === 'redirect')
      return { raw: { statusCode: 302 }, headers: { location: outcome.location } };
    return {
      raw: { statusCode: 400, body: errorPage(outcome.message) },
      headers: { 'content-type': 'text/html; charset=utf-8' },
    };
  },
);
