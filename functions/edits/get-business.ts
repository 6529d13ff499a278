import { assertHoldsBusiness } from '#lib/auth/business-access.ts';
import { consoleAuth } from '#lib/auth/console-token.ts';
import { businessSummary } from '#lib/edits/business-overview.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(
  editsRoutes.getEditBusiness,
  consoleAuth,
  async ({ params, principal }) => ({
    data: await businessSummary(await assertHoldsBusiness(principal, params.business_id)),
  }),
);
