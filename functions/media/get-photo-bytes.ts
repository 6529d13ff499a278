import { internalAuth } from '#lib/auth/internal-api-key.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { photoBytes } from '#lib/media/photo-bytes.ts';
import { findPhoto } from '#lib/media/photo-store.ts';
import { mediaRoutes } from '#lib/routes/media.ts';

export const handler = httpHandler(mediaRoutes.getPhotoBytes, internalAuth, async ({ params, headers }) =>
  photoBytes(await findPhoto(params.photo_id), headers['if-none-match']),
);
