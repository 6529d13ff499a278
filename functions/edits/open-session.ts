import { editsAuth } from '#lib/auth/edits-auth.ts';
import { openSession } from '#lib/edits/sessions.ts';
import { withIdempotencyKey } from '#lib/http/idempotency/response-store.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(
  editsRoutes.openEditSession,
  editsAuth,
  async ({ body, principal, idempotentCreate }) => ({
    data: await openSession(principal, body.business_id, idempotentCreate),
  }),
  { idempotency: withIdempotencyKey },
);
