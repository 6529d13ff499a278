import { editsAuth } from '#lib/auth/edits-auth.ts';
import { discardChangeset } from '#lib/edits/review.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(
  editsRoutes.discardChangeset,
  editsAuth,
  async ({ params, principal }) => ({
    data: await discardChangeset(principal, params.changeset_id),
  }),
);
