import { editsAuth } from '#lib/auth/edits-auth.ts';
import { stageChangeset } from '#lib/edits/stage.ts';
import { withIdempotencyKey } from '#lib/http/idempotency/response-store.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(
  editsRoutes.stageChangeset,
  editsAuth,
  async ({ params, body, principal, idempotentCreate }) => ({
    data: await stageChangeset(principal, params.session_id, body, idempotentCreate),
  }),
  { idempotency: withIdempotencyKey },
);
