import { editsAuth } from '#lib/auth/edits-auth.ts';
import { readChangeset } from '#lib/edits/review.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(editsRoutes.getChangeset, editsAuth, async ({ params, principal }) => ({
  data: await readChangeset(principal, params.changeset_id),
}));
