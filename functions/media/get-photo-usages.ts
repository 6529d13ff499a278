import { internalReadHandler } from '#lib/media/internal-read-handler.ts';
import { photoUsages } from '#lib/media/photo-usages.ts';
import { mediaRoutes } from '#lib/routes/media.ts';

export const handler = internalReadHandler(mediaRoutes.getPhotoUsages, ({ params }) =>
  photoUsages(params.photo_id),
);
