import { editsAuth } from '#lib/auth/edits-auth.ts';
import { undoChange } from '#lib/edits/undo.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(editsRoutes.undoChange, editsAuth, async ({ params, principal }) => ({
  data: await undoChange(principal, params.business_id, params.entry_id),
}));
