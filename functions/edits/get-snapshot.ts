import { editsAuth } from '#lib/auth/assistant-token.ts';
import { buildSnapshot } from '#lib/edits/business-overview.ts';
import { useSession } from '#lib/edits/sessions.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(editsRoutes.getEditSnapshot, editsAuth, async ({ params, principal }) => {
  const session = await useSession(principal, params.session_id);
  return { data: await buildSnapshot(session.business_id) };
});
