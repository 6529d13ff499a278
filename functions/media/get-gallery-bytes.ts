import { internalAuth } from '#lib/auth/internal-api-key.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { findGalleryPhoto } from '#lib/media/gallery-store.ts';
import { galleryBytes } from '#lib/media/photo-bytes.ts';
import { mediaRoutes } from '#lib/routes/media.ts';

export const handler = httpHandler(
  mediaRoutes.getGalleryPhotoBytes,
  internalAuth,
  async ({ params, headers }) =>
    galleryBytes(await findGalleryPhoto(params.photo_id), headers['if-none-match']),
);
