import { editsAuth } from '#lib/auth/edits-auth.ts';
import { readRecord } from '#lib/edits/reads.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(editsRoutes.getEditRecord, editsAuth, async ({ params, principal }) => ({
  data: await readRecord(principal, params.session_id, params.entity, params.record_id),
}));
