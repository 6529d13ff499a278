import { removePlatformAdminEntry } from '#lib/admins/platform-admin-store.ts';
import { assertPlatformAdmin } from '#lib/auth/business-access.ts';
import { consoleAuth } from '#lib/auth/console-token.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { adminRoutes } from '#lib/routes/admin.ts';

export const handler = httpHandler(
  adminRoutes.removePlatformAdminUser,
  consoleAuth,
  async ({ params, principal }) => {
    await assertPlatformAdmin(principal);
    await removePlatformAdminEntry(params.entry_id);
    return undefined;
  },
);
