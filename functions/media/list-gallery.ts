import { besideInternalKey, internalAuth } from '#lib/auth/internal-api-key.ts';
import type { EarlyRequest } from '#lib/http/early-read.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { listGallery } from '#lib/media/gallery-store.ts';
import { mediaRoutes } from '#lib/routes/media.ts';

const route = mediaRoutes.listGalleryPhotos;

const page = ({ query }: Pick<EarlyRequest<typeof route>, 'query'>) =>
  listGallery({ industryId: query.industry_id, limit: query.limit, cursor: query.cursor });

/** The page's read, sent while the internal key is checked. */
const earlyPage = besideInternalKey((request: EarlyRequest<typeof route>) => page(request));

export const handler = httpHandler(
  route,
  internalAuth,
  async (input) => ({ data: await (input.early ?? page(input)) }),
  { earlyRead: earlyPage },
);
