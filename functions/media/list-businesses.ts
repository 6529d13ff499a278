import { internalAuth } from '#lib/auth/internal-api-key.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { listMediaBusinesses } from '#lib/media/photo-store.ts';
import { mediaRoutes } from '#lib/routes/media.ts';

export const handler = httpHandler(mediaRoutes.listMediaBusinesses, internalAuth, async ({ query }) => ({
  data: await listMediaBusinesses(query),
}));
