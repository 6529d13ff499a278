import { bundledFile } from '#lib/config/bundled-file.ts';
import type { buildOpenApiDocument } from './openapi.ts';

/**
 * The OpenAPI document as GET /openapi.json serves it. It depends on nothing but the route table,
 * so the function's bundle carries it as a file beside its code (lib/config/bundled-file.ts),
 * built at every bundling: building it from the route table's zod schemas was most of that
 * function's cold start, and the function holds neither the builder nor the zod classic and
 * zod-to-openapi it needs.
 */
export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;

/** The file beside the function's code: `buildOpenApiDocument()` as JSON. */
export const OPENAPI_DOCUMENT_FILE = 'openapi-document.json';

/** The document, read once per container. */
export const openApiDocument = bundledFile(
  OPENAPI_DOCUMENT_FILE,
  (text) => JSON.parse(text) as OpenApiDocument,
);
