import { internalReadHandler } from '#lib/media/internal-read-handler.ts';
import { listMediaBusinesses } from '#lib/media/photo-store.ts';
import { mediaRoutes } from '#lib/routes/media.ts';

export const handler = internalReadHandler(mediaRoutes.listMediaBusinesses, ({ query }) =>
  listMediaBusinesses(query),
);
