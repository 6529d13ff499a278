import { publicAccess } from '#lib/auth/public-access.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { registerClient } from '#lib/oauth/clients.ts';
import { oauthRoutes } from '#lib/routes/oauth.ts';

export const handler = httpHandler(
  oauthRoutes.registerOAuthClient,
  publicAccess,
  async ({ body, principal }) => ({
    data: await registerClient(body, principal.sourceIp),
  }),
);
