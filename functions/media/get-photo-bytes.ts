import { besideInternalKey, internalAuth } from '#lib/auth/internal-api-key.ts';
import type { EarlyRequestOf } from '#lib/http/early-read.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { photoBytes } from '#lib/media/photo-bytes.ts';
import { findPhoto } from '#lib/media/photo-store.ts';
import { mediaRoutes } from '#lib/routes/media.ts';

/** The photo's read, sent while the internal key is checked. */
const earlyPhoto = besideInternalKey(({ params }: EarlyRequestOf<{ photo_id: string }>) =>
  findPhoto(params.photo_id),
);

export const handler = httpHandler(
  mediaRoutes.getPhotoBytes,
  internalAuth,
  async ({ params, headers, early }) =>
    photoBytes(await (early ?? findPhoto(params.photo_id)), headers['if-none-match']),
  { earlyRead: earlyPhoto },
);
