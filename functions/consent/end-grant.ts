import { consoleAuth } from '#lib/auth/console-token.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { endUserGrant } from '#lib/oauth/grants.ts';
import { consentRoutes } from '#lib/routes/consent.ts';

export const handler = httpHandler(
  consentRoutes.endOAuthGrant,
  consoleAuth,
  async ({ params, principal }) => {
    await endUserGrant(principal.userId, params.grant_id);
    return undefined;
  },
);
