import { publicAccess } from '#lib/auth/public-access.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { publicJwks } from '#lib/oauth/signing-key.ts';
import { oauthRoutes } from '#lib/routes/oauth.ts';

export const handler = httpHandler(oauthRoutes.getOAuthJwks, publicAccess, async () => ({
  data: await publicJwks(),
  headers: { 'cache-control': 'public, max-age=300' },
}));
