import { internalReadHandler } from '#lib/media/internal-read-handler.ts';
import { listPhotos } from '#lib/media/photo-store.ts';
import { mediaRoutes } from '#lib/routes/media.ts';

export const handler = internalReadHandler(mediaRoutes.listBusinessPhotos, ({ query }) =>
  listPhotos({
    businessId: query.business_id,
    includeDeleted: query.include_deleted === 'true',
    updatedAfter: query.updated_after,
    limit: query.limit,
    cursor: query.cursor,
  }),
);
