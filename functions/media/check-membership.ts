import { besideInternalKey, internalAuth } from '#lib/auth/internal-api-key.ts';
import type { EarlyRequest } from '#lib/http/early-read.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { membership } from '#lib/media/photo-store.ts';
import { mediaRoutes } from '#lib/routes/media.ts';

const route = mediaRoutes.checkBusinessMembership;

/** The membership's read, sent while the internal key is checked. */
const earlyMembership = besideInternalKey(({ params }: EarlyRequest<typeof route>) =>
  membership(params.business_id, params.user_id),
);

export const handler = httpHandler(
  route,
  internalAuth,
  async ({ params, early }) => ({ data: await (early ?? membership(params.business_id, params.user_id)) }),
  { earlyRead: earlyMembership },
);
