import { publicAccess } from '#lib/auth/public-access.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { docsRoutes } from '#lib/routes/docs.ts';
import { once } from '#lib/validation/lazy.ts';
import { openApiDocument } from '../../infra/bundled-openapi-document.ts';

// Unpacked (or, from source, built) on the first request and kept for the container's life; only
// the server URL varies.
const document = once(openApiDocument);

export const handler = httpHandler(docsRoutes.getOpenApiDocument, publicAccess, async ({ headers }) => ({
  data: {
    ...(await document()),
    servers: [{ url: headers.host ? `${headers['x-forwarded-proto'] ?? 'https'}://${headers.host}` : '/' }],
  },
  headers: { 'cache-control': 'public, max-age=300' },
}));
