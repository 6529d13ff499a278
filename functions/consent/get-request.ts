import { consoleAuth } from '#lib/auth/console-token.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { readConsentRequest } from '#lib/oauth/consent.ts';
import { consentRoutes } from '#lib/routes/consent.ts';

export const handler = httpHandler(
  consentRoutes.getConsentRequest,
  consoleAuth,
  async ({ params, principal }) => ({
    data: await readConsentRequest(principal, params.request_id),
  }),
);
