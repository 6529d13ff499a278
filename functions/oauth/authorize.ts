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
  async ({ query, principal }): Promise<HandlerOutput> => {
    const outcome = await authorize(query, principal.sourceIp);
    if (outcome.kind === 'redirect') {
      return { raw: { statusCode: 302 }, headers: { ...REDIRECT_HEADERS, location: outcome.location } };
    }
    if (outcome.retryAfterSeconds !== undefined) {
      return {
        raw: { statusCode: 429, body: errorPage(outcome.message) },
        headers: { ...ERROR_PAGE_HEADERS, 'retry-after': String(outcome.retryAfterSeconds) },
      };
    }
    return { raw: { statusCode: 400, body: errorPage(outcome.message) }, headers: ERROR_PAGE_HEADERS };
  },
);
