import { internalAuth } from '#lib/auth/internal-api-key.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { photoUsages } from '#lib/media/photo-usages.ts';
import { mediaRoutes } from '#lib/routes/media.ts';

export const handler = httpHandler(mediaRoutes.getPhotoUsages, internalAuth, async ({ params }) => ({
  data: await photoUsages(params.photo_id),
}));
