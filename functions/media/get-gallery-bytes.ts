import { besideInternalKey, internalAuth } from '#lib/auth/internal-api-key.ts';
import type { EarlyRequestOf } from '#lib/http/early-read.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { findGalleryPhoto } from '#lib/media/gallery-store.ts';
import { galleryBytes } from '#lib/media/photo-bytes.ts';
import { mediaRoutes } from '#lib/routes/media.ts';

/** The photo's read, sent while the internal key is checked. */
const earlyPhoto = besideInternalKey(({ params }: EarlyRequestOf<{ photo_id: string }>) =>
  findGalleryPhoto(params.photo_id),
);

export const handler = httpHandler(
  mediaRoutes.getGalleryPhotoBytes,
  internalAuth,
  async ({ params, headers, early }) =>
    galleryBytes(await (early ?? findGalleryPhoto(params.photo_id)), headers['if-none-match']),
  { earlyRead: earlyPhoto },
);
