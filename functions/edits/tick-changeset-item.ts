import { editsAuth } from '#lib/auth/edits-auth.ts';
import { tickItem } from '#lib/edits/review.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(
  editsRoutes.tickChangesetItem,
  editsAuth,
  async ({ params, body, principal }) => ({
    data: await tickItem(principal, params.changeset_id, params.item_id, body.ticked),
  }),
);
