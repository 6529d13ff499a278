import { readEntry } from '#lib/admins/platform-admin-reads.ts';
import { removePlatformAdminEntry } from '#lib/admins/platform-admin-store.ts';
import { readAlongsideAccess } from '#lib/auth/alongside-access.ts';
import { assertPlatformAdmin } from '#lib/auth/business-access.ts';
import { consoleAuth } from '#lib/auth/console-token.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { adminRoutes } from '#lib/routes/admin.ts';

export const handler = httpHandler(
  adminRoutes.removePlatformAdminUser,
  consoleAuth,
  async ({ params, principal }) => {
    // The entry's first read goes out in the admin check's own call.
    const { result: entry } = await readAlongsideAccess(
      (reads) => assertPlatformAdmin(principal, reads),
      (reads) => readEntry(params.entry_id, reads),
    );
    await removePlatformAdminEntry(entry);
    return undefined;
  },
);
