import { consoleAuth } from '#lib/auth/console-token.ts';
import { listClaims } from '#lib/edits/business-overview.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(editsRoutes.listClaims, consoleAuth, async ({ principal }) => ({
  data: await listClaims(principal),
}));
