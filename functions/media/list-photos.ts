import { internalAuth } from '#lib/auth/internal-api-key.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { listPhotos } from '#lib/media/photo-store.ts';
import { mediaRoutes } from '#lib/routes/media.ts';

export const handler = httpHandler(mediaRoutes.listBusinessPhotos, internalAuth, async ({ query }) => ({
  data: await listPhotos({
    businessId: query.business_id,
    includeDeleted: query.include_deleted === 'true',
    updatedAfter: query.updated_after,
    limit: query.limit,
    cursor: query.cursor,
  }),
}));
