import { publicAccess } from '#lib/auth/public-access.ts';
import type { HandlerOutput } from '#lib/http/pipeline.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { authorize } from '#lib/oauth/authorize.ts';
import { ERROR_PAGE_HEADERS, errorPage } from '#lib/oauth/error-page.ts';
import { oauthRoutes } from '#lib/routes/oauth.ts';

/** A redirect of /oauth/authorize carries a request id or an error: never cached, never in a Referer. */
const REDIRECT_HEADERS = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };

export const handler = httpHandler(
  oauthRoutes.authorizeOAuthClient,
  publicAccess,
  async ({ query }): Promise<HandlerOutput> => {
    const outcome = await authorize(query);
    if (outcome.kind === 'redirect') {
      return { raw: { statusCode: 302 }, headers: { ...REDIRECT_HEADERS, location: outcome.location } };
    }
    return { raw: { statusCode: 400, body: errorPage(outcome.message) }, headers: ERROR_PAGE_HEADERS };
  },
);
