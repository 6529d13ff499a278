import { editsAuth } from '#lib/auth/edits-auth.ts';
import { revertChangeset } from '#lib/edits/revert.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(editsRoutes.revertChangeset, editsAuth, async ({ params, principal }) => ({
  data: await revertChangeset(principal, params.changeset_id),
}));
