import { editsAuth } from '#lib/auth/edits-auth.ts';
import { readSnapshot } from '#lib/edits/reads.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(editsRoutes.getEditSnapshot, editsAuth, async ({ params, principal }) => ({
  data: await readSnapshot(principal, params.session_id),
}));
