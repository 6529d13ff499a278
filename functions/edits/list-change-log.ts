import { editsAuth } from '#lib/auth/edits-auth.ts';
import { readChangeLog } from '#lib/edits/change-log.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(
  editsRoutes.listChangeLog,
  editsAuth,
  async ({ params, query, principal }) => {
    const page = await readChangeLog(principal, params.business_id, query);
    return { data: page.entries, meta: { next_cursor: page.nextCursor } };
  },
);
