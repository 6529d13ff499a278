import { consoleAuth } from '#lib/auth/console-token.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { listLiveGrants } from '#lib/oauth/grant-list.ts';
import { consentRoutes } from '#lib/routes/consent.ts';

export const handler = httpHandler(
  consentRoutes.listOAuthGrants,
  consoleAuth,
  async ({ principal, query }) => ({
    data: await listLiveGrants(principal.userId, { limit: query.limit, cursor: query.cursor }),
  }),
);
