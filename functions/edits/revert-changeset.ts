import { consoleAuth } from '#lib/auth/console-token.ts';
import { revertChangeset } from '#lib/edits/revert.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';

export const handler = httpHandler(
  editsRoutes.revertChangeset,
  consoleAuth,
  async ({ params, principal }) => ({
    data: await revertChangeset(principal, params.changeset_id),
  }),
);
