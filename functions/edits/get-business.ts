import { editsAuth } from '#lib/auth/edits-auth.ts';
import { readBusiness } from '#lib/edits/reads.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(editsRoutes.getEditBusiness, editsAuth, async ({ params, principal }) => ({
  data: await readBusiness(principal, params.business_id),
}));
