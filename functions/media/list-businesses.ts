import { besideInternalKey, internalAuth } from '#lib/auth/internal-api-key.ts';
import type { EarlyRequest } from '#lib/http/early-read.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { listMediaBusinesses } from '#lib/media/photo-store.ts';
import { mediaRoutes } from '#lib/routes/media.ts';

const route = mediaRoutes.listMediaBusinesses;

/** The page's read, sent while the internal key is checked. */
const earlyPage = besideInternalKey(({ query }: EarlyRequest<typeof route>) => listMediaBusinesses(query));

export const handler = httpHandler(
  route,
  internalAuth,
  async ({ query, early }) => ({ data: await (early ?? listMediaBusinesses(query)) }),
  { earlyRead: earlyPage },
);
