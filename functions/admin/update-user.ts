import { updatePlatformAdminEntry } from '#lib/admins/platform-admin-store.ts';
import { assertPlatformAdmin } from '#lib/auth/business-access.ts';
import { consoleAuth } from '#lib/auth/console-token.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { adminRoutes } from '#lib/routes/admin.ts';

export const handler = httpHandler(
  adminRoutes.updatePlatformAdminUser,
  consoleAuth,
  async ({ params, body, principal }) => {
    await assertPlatformAdmin(principal);
    return { data: await updatePlatformAdminEntry(params.entry_id, body) };
  },
);
