import { internalAuth } from '#lib/auth/internal-api-key.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { listGallery } from '#lib/media/gallery-store.ts';
import { mediaRoutes } from '#lib/routes/media.ts';

export const handler = httpHandler(mediaRoutes.listGalleryPhotos, internalAuth, async ({ query }) => ({
  data: await listGallery({ industryId: query.industry_id, limit: query.limit, cursor: query.cursor }),
}));
