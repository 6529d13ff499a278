import { inviteAdmin } from '#lib/admins/invite-admin.ts';
import { readInviteeEntry } from '#lib/admins/platform-admin-reads.ts';
import { readAlongsideAccess } from '#lib/auth/alongside-access.ts';
import { assertPlatformAdmin } from '#lib/auth/business-access.ts';
import { consoleAuth } from '#lib/auth/console-token.ts';
import { withIdempotencyKey } from '#lib/http/idempotency/response-store.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { adminRoutes } from '#lib/routes/admin.ts';

export const handler = httpHandler(
  adminRoutes.invitePlatformAdmin,
  consoleAuth,
  async ({ body, principal, idempotentCreate }) => {
    // The invitee's entry is read in the access check's own call; the invite is written after it.
    const { result: invitee } = await readAlongsideAccess(
      (reads) => assertPlatformAdmin(principal, reads),
      (reads) => readInviteeEntry(body.email, reads),
    );
    return {
      data: await inviteAdmin(
        { ...body, invitedBy: principal.email ?? principal.userId },
        idempotentCreate,
        invitee,
      ),
    };
  },
  { idempotency: withIdempotencyKey },
);
