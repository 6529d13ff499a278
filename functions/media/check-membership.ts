import { internalAuth } from '#lib/auth/internal-api-key.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { membership } from '#lib/media/photo-store.ts';
import { mediaRoutes } from '#lib/routes/media.ts';

export const handler = httpHandler(mediaRoutes.checkBusinessMembership, internalAuth, async ({ params }) => ({
  data: await membership(params.business_id, params.user_id),
}));
