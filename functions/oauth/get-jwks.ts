import { publicAccess } from '#lib/auth/public-access.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { JWKS_ROUTE_MAX_AGE_SECONDS } from '#lib/oauth/key-schedule.ts';
import { publishedJwks } from '#lib/oauth/published-keys.ts';
import { oauthRoutes } from '#lib/routes/oauth.ts';

export const handler = httpHandler(oauthRoutes.getOAuthJwks, publicAccess, async () => ({
  data: await publishedJwks(),
  headers: { 'cache-control': `public, max-age=${JWKS_ROUTE_MAX_AGE_SECONDS}` },
}));
