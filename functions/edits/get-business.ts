import { editsAuth } from '#lib/auth/assistant-token.ts';
import { assertHoldsBusiness } from '#lib/auth/business-access.ts';
import { businessSummary } from '#lib/edits/business-overview.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(editsRoutes.getEditBusiness, editsAuth, async ({ params, principal }) => ({
  data: await businessSummary(await assertHoldsBusiness(principal, params.business_id)),
}));
