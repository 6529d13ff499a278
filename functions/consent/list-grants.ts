import { consoleAuth } from '#lib/auth/console-token.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { listLiveGrants } from '#lib/oauth/grants.ts';
import { consentRoutes } from '#lib/routes/consent.ts';

export const handler = httpHandler(consentRoutes.listOAuthGrants, consoleAuth, async ({ principal }) => ({
  data: { grants: await listLiveGrants(principal.userId) },
}));
