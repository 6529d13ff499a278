import { acceptInvite } from '#lib/admins/platform-admin-store.ts';
import { consoleAuth } from '#lib/auth/console-token.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { adminRoutes } from '#lib/routes/admin.ts';

export const handler = httpHandler(
  adminRoutes.acceptPlatformAdminInvite,
  consoleAuth,
  async ({ params, principal }) => ({
    data: await acceptInvite(params.invite_id, principal),
  }),
);
