import { consoleAuth } from '#lib/auth/console-token.ts';
import { stageChangeset } from '#lib/edits/stage.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(
  editsRoutes.stageChangeset,
  consoleAuth,
  async ({ params, body, principal }) => ({
    data: await stageChangeset(principal, params.session_id, body),
  }),
);
