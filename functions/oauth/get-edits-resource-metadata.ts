import { publicAccess } from '#lib/auth/public-access.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { protectedResourceMetadata } from '#lib/oauth/metadata.ts';
import { oauthRoutes } from '#lib/routes/oauth.ts';

export const handler = httpHandler(oauthRoutes.getEditsResourceMetadata, publicAccess, async () => ({
  data: protectedResourceMetadata('edits'),
  headers: { 'cache-control': 'public, max-age=3600' },
}));
