import { editsAuth } from '#lib/auth/edits-auth.ts';
import { applyChangeset } from '#lib/edits/apply.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(editsRoutes.applyChangeset, editsAuth, async ({ params, principal }) => ({
  data: await applyChangeset(principal, params.changeset_id),
}));
