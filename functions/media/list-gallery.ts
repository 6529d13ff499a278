import { listGallery } from '#lib/media/gallery-store.ts';
import { internalReadHandler } from '#lib/media/internal-read-handler.ts';
import { mediaRoutes } from '#lib/routes/media.ts';

export const handler = internalReadHandler(mediaRoutes.listGalleryPhotos, ({ query }) =>
  listGallery({ industryId: query.industry_id, limit: query.limit, cursor: query.cursor }),
);
