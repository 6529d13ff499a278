import { consoleAuth } from '#lib/auth/console-token.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { decideConsentRequest } from '#lib/oauth/consent.ts';
import { consentRoutes } from '#lib/routes/consent.ts';

export const handler = httpHandler(
  consentRoutes.approveConsentRequest,
  consoleAuth,
  async ({ params, principal }) => ({
    data: await decideConsentRequest(principal, params.request_id, 'approve'),
  }),
);
