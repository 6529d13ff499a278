import { publicAccess } from '#lib/auth/public-access.ts';
import { NotFoundError } from '#lib/http/errors.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { oauthRoutes } from '#lib/routes/oauth.ts';

export const handler = httpHandler(oauthRoutes.getUnknownWellKnown, publicAccess, async ({ params }) => {
  throw new NotFoundError(`Nothing is published at /.well-known/${params.proxy}`);
});
