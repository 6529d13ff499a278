import { readAlongsideAccess } from '#lib/auth/alongside-access.ts';
import { assertMemberOf } from '#lib/auth/business-access.ts';
import { consoleAuth } from '#lib/auth/console-token.ts';
import { getAutoSchedule } from '#lib/blog/auto-schedule.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { blogRoutes } from '#lib/routes/blog.ts';

export const handler = httpHandler(
  blogRoutes.getBlogAutoSchedule,
  consoleAuth,
  async ({ params, principal }) => {
    const { result } = await readAlongsideAccess(
      (reads) => assertMemberOf(principal, params.business_id, reads),
      (reads) => getAutoSchedule(params.business_id, reads),
    );
    return { data: result };
  },
);
