import { besideInternalKey, internalAuth } from '#lib/auth/internal-api-key.ts';
import type { EarlyRequest } from '#lib/http/early-read.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { listPhotos } from '#lib/media/photo-store.ts';
import { mediaRoutes } from '#lib/routes/media.ts';

const route = mediaRoutes.listBusinessPhotos;

const page = ({ query }: Pick<EarlyRequest<typeof route>, 'query'>) =>
  listPhotos({
    businessId: query.business_id,
    includeDeleted: query.include_deleted === 'true',
    updatedAfter: query.updated_after,
    limit: query.limit,
    cursor: query.cursor,
  });

/** The page's read, sent while the internal key is checked. */
const earlyPage = besideInternalKey((request: EarlyRequest<typeof route>) => page(request));

export const handler = httpHandler(
  route,
  internalAuth,
  async (input) => ({ data: await (input.early ?? page(input)) }),
  { earlyRead: earlyPage },
);
