import { readAlongsideAccess } from '#lib/auth/alongside-access.ts';
import { assertHoldsBusiness } from '#lib/auth/business-access.ts';
import { editsAuth } from '#lib/auth/edits-auth.ts';
import { listChangesets } from '#lib/edits/changeset-list.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(
  editsRoutes.listChangesets,
  editsAuth,
  async ({ params, query, principal }) => {
    const { result: page } = await readAlongsideAccess(
      (reads) => assertHoldsBusiness(principal, params.business_id, reads),
      () => listChangesets(params.business_id, query),
    );
    return { data: page.changesets, meta: { next_cursor: page.nextCursor } };
  },
);
