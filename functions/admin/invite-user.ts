import { inviteAdmin } from '#lib/admins/invite-admin.ts';
import { assertPlatformAdmin } from '#lib/auth/business-access.ts';
import { consoleAuth } from '#lib/auth/console-token.ts';
import { withIdempotencyKey } from '#lib/http/idempotency/response-store.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { adminRoutes } from '#lib/routes/admin.ts';

export const handler = httpHandler(
  adminRoutes.invitePlatformAdmin,
  consoleAuth,
  async ({ body, principal, idempotentCreate }) => {
    await assertPlatformAdmin(principal);
    return {
      data: await inviteAdmin({ ...body, invitedBy: principal.email ?? principal.userId }, idempotentCreate),
    };
  },
  { idempotency: withIdempotencyKey },
);
