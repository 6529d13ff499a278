import { readAlongsideAccess } from '#lib/auth/alongside-access.ts';
import { assertHoldsBusiness } from '#lib/auth/business-access.ts';
import { consoleAuth } from '#lib/auth/console-token.ts';
import { putAutoSchedule, readSchedule } from '#lib/blog/auto-schedule.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { blogRoutes } from '#lib/routes/blog.ts';

export const handler = httpHandler(
  blogRoutes.putBlogAutoSchedule,
  consoleAuth,
  async ({ params, body, principal }) => {
    const { result: seen } = await readAlongsideAccess(
      (reads) => assertHoldsBusiness(principal, params.business_id, reads),
      (reads) => readSchedule(params.business_id, reads),
    );
    const actor = { kind: 'user', id: principal.userId } as const;
    return { data: await putAutoSchedule(params.business_id, body, seen, actor) };
  },
);
