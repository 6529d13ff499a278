import { besideInternalKey, internalAuth } from '#lib/auth/internal-api-key.ts';
import type { EarlyRequest } from '#lib/http/early-read.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { photoUsages } from '#lib/media/photo-usages.ts';
import { mediaRoutes } from '#lib/routes/media.ts';

const route = mediaRoutes.getPhotoUsages;

/** The usages' read, sent while the internal key is checked. */
const earlyUsages = besideInternalKey(({ params }: EarlyRequest<typeof route>) =>
  photoUsages(params.photo_id),
);

export const handler = httpHandler(
  route,
  internalAuth,
  async ({ params, early }) => ({ data: await (early ?? photoUsages(params.photo_id)) }),
  { earlyRead: earlyUsages },
);
