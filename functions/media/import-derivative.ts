import { internalAuth } from '#lib/auth/internal-api-key.ts';
import { multipartBody } from '#lib/http/multipart-body.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { importDerivative } from '#lib/media/import-derivative.ts';
import { mediaRoutes } from '#lib/routes/media.ts';

export const handler = httpHandler(
  mediaRoutes.importDerivativePhoto,
  internalAuth,
  async ({ body }) => ({
    data: await importDerivative(body.file as { content?: unknown } | undefined, body.meta),
  }),
  { bodyParser: multipartBody },
);
