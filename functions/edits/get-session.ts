import { editsAuth } from '#lib/auth/edits-auth.ts';
import { readSession } from '#lib/edits/sessions.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(editsRoutes.getEditSession, editsAuth, async ({ params, principal }) => ({
  data: await readSession(principal, params.session_id),
}));
