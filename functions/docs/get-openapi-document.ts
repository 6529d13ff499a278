import { publicAccess } from '#lib/auth/public-access.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { docsRoutes } from '#lib/routes/docs.ts';
import { openApiDocument } from '../../infra/bundled-openapi-document.ts';

export const handler = httpHandler(docsRoutes.getOpenApiDocument, publicAccess, async ({ headers }) => ({
  data: {
    // Read on the first request and kept for the container's life; only the server URL varies.
    ...(await openApiDocument()),
    servers: [{ url: headers.host ? `${headers['x-forwarded-proto'] ?? 'https'}://${headers.host}` : '/' }],
  },
  headers: { 'cache-control': 'public, max-age=300' },
}));
