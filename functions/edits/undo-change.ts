import { assertHoldsBusiness } from '#lib/auth/business-access.ts';
import { consoleAuth } from '#lib/auth/console-token.ts';
import { undoChange } from '#lib/edits/undo.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(editsRoutes.undoChange, consoleAuth, async ({ params, principal }) => {
  await assertHoldsBusiness(principal, params.business_id);
  return { data: await undoChange(principal, params.business_id, params.entry_id) };
});
