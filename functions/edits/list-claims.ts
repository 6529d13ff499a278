import { editsAuth } from '#lib/auth/edits-auth.ts';
import { listClaims } from '#lib/edits/claims.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(editsRoutes.listClaims, editsAuth, async ({ principal }) => ({
  data: await listClaims(principal),
}));
