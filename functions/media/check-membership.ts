import { internalReadHandler } from '#lib/media/internal-read-handler.ts';
import { membership } from '#lib/media/photo-store.ts';
import { mediaRoutes } from '#lib/routes/media.ts';

export const handler = internalReadHandler(mediaRoutes.checkBusinessMembership, ({ params }) =>
  membership(params.business_id, params.user_id),
);
