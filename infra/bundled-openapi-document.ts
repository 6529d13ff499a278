import { gunzipSync, gzipSync } from 'node:zlib';
import type { buildOpenApiDocument } from './openapi.ts';

/**
 * The OpenAPI document as GET /openapi.json serves it. It depends on nothing but the route table,
 * so the bundled function carries it: the bundler builds it at every bundling (infra/bundling.ts)
 * and defines `BUNDLED_OPENAPI_DOCUMENT` as its JSON, gzipped and in base64 (~25 KB instead of
 * ~360 KB, since a define travels as one command-line argument). Building it from the route
 * table's zod schemas was most of that function's cold start. Run from source (the local harness,
 * tests), it is built on first use.
 */
export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;

/** The packed document the bundler defines in the function's bundle; absent when run from source. */
declare const BUNDLED_OPENAPI_DOCUMENT: string | undefined;

/** The document as the bundler defines it. */
export const packOpenApiDocument = (document: OpenApiDocument): string =>
  gzipSync(JSON.stringify(document), { level: 9 }).toString('base64');

/**
 * The bundled document, or one built now from source. The builder is imported only on that path,
 * so a bundle, where the bundler folds the condition, holds neither it nor the zod and
 * zod-to-openapi it needs.
 */
export async function openApiDocument(): Promise<OpenApiDocument> {
  if (typeof BUNDLED_OPENAPI_DOCUMENT === 'string') {
    return JSON.parse(
      gunzipSync(Buffer.from(BUNDLED_OPENAPI_DOCUMENT, 'base64')).toString('utf8'),
    ) as OpenApiDocument;
  } else {
    // In an else, not after the return: esbuild drops a folded-away branch with the import in it,
    // but still bundles an import that only follows a return.
    return (await import('./openapi.ts')).buildOpenApiDocument();
  }
}
