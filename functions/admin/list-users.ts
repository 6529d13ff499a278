import { listPlatformAdminEntries } from '#lib/admins/platform-admin-reads.ts';
import { readAlongsideAccess } from '#lib/auth/alongside-access.ts';
import { assertPlatformAdmin } from '#lib/auth/business-access.ts';
import { consoleAuth } from '#lib/auth/console-token.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { adminRoutes } from '#lib/routes/admin.ts';

export const handler = httpHandler(adminRoutes.listPlatformAdminUsers, consoleAuth, async ({ principal }) => {
  const { result } = await readAlongsideAccess(
    (reads) => assertPlatformAdmin(principal, reads),
    listPlatformAdminEntries,
  );
  return { data: result };
});
