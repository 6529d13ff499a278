import { listPlatformAdminEntries } from '#lib/admins/platform-admin-store.ts';
import { assertPlatformAdmin } from '#lib/auth/business-access.ts';
import { consoleAuth } from '#lib/auth/console-token.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { adminRoutes } from '#lib/routes/admin.ts';

export const handler = httpHandler(adminRoutes.listPlatformAdminUsers, consoleAuth, async ({ principal }) => {
  await assertPlatformAdmin(principal);
  return { data: await listPlatformAdminEntries() };
});
