import { editsAuth } from '#lib/auth/assistant-token.ts';
import { assertHoldsBusiness } from '#lib/auth/business-access.ts';
import { listChangeLog } from '#lib/edits/business-overview.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(
  editsRoutes.listChangeLog,
  editsAuth,
  async ({ params, query, principal }) => {
    await assertHoldsBusiness(principal, params.business_id);
    const page = await listChangeLog(params.business_id, query);
    return { data: page.entries, meta: { next_cursor: page.nextCursor } };
  },
);
