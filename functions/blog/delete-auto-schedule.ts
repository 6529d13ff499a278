import { assertHoldsBusiness } from '#lib/auth/business-access.ts';
import { consoleAuth } from '#lib/auth/console-token.ts';
import { deleteAutoSchedule } from '#lib/blog/auto-schedule.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { blogRoutes } from '#lib/routes/blog.ts';

export const handler = httpHandler(
  blogRoutes.deleteBlogAutoSchedule,
  consoleAuth,
  async ({ params, principal }) => {
    await assertHoldsBusiness(principal, params.business_id);
    await deleteAutoSchedule(params.business_id, { kind: 'user', id: principal.userId });
    return undefined;
  },
);
