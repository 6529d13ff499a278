import { editsAuth } from '#lib/auth/assistant-token.ts';
import { useSession } from '#lib/edits/sessions.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { getRecord } from '#lib/records/record-store.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(editsRoutes.getEditRecord, editsAuth, async ({ params, principal }) => {
  const session = await useSession(principal, params.session_id);
  const record = await getRecord(params.entity, session.business_id, params.record_id);
  return {
    data: { entity: params.entity, record_id: params.record_id, version: record.version, data: record },
  };
});
