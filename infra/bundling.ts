import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { docsRoutes } from '#lib/routes/docs.ts';
import { mcpRoutes } from '#lib/routes/mcp.ts';
import { ROOT_DIR } from './local/paths.ts';

/**
 * How every function is bundled: by CDK for deployment and by the bench for measurement, so the
 * figures the bench prints are those of what gets deployed.
 */
export const BUNDLE_TARGET = 'node22';

/**
 * CommonJS, not ESM (docs/architecture.md, 'Cold starts'): an ESM bundle imports `node:http` as an ES
 * module, and building that namespace makes Node 22 load its bundled undici (http's lazy
 * `WebSocket` exports) in every function's cold start, though nothing uses it; the same
 * code as CommonJS `require`s it and never does. ESM sources are still what esbuild reads
 * (`mainFields`), so tree shaking is unchanged, and CommonJS needs no `createRequire` banner.
 */
export const BUNDLE_FORMAT = 'cjs' as const;

/**
 * The bundle's file name. Lambda's runtime `require`s an `index.js` outside a `"type": "module"`
 * package (CDK's CommonJS output); locally `.cjs` says the same wherever the file lands.
 */
export const BUNDLE_FILE = 'index.cjs';

/** esbuild options shared by CDK's NodejsFunction and the bench's direct esbuild call. */
export const esbuildOptions = {
  bundle: true,
  platform: 'node' as const,
  format: BUNDLE_FORMAT,
  target: BUNDLE_TARGET,
  minify: true,
  sourcemap: true,
  mainFields: ['module', 'main'],
  // The AWS SDK is bundled, not taken from the runtime: pinned versions, smaller cold start.
  external: [] as string[],
};

/**
 * What the bundler defines, by function entry: the global name the function's source declares
 * (`declare const`) and tests with `typeof`, and the constant it becomes.
 */
const BUNDLED_CONSTANTS: Record<string, { name: string; constant: string }> = {
  [mcpRoutes.handleMcp.handler]: { name: 'BUNDLED_TOOL_JSON_SCHEMAS', constant: 'tool-json-schemas' },
  [docsRoutes.getOpenApiDocument.handler]: {
    name: 'BUNDLED_OPENAPI_DOCUMENT',
    constant: 'openapi-document',
  },
};

/** CDK passes each define to esbuild as one command-line argument, which Linux caps at 128 KiB. */
const MAX_DEFINE_BYTES = 120 * 1024;

const computed = new Map<string, string>();

/**
 * What esbuild defines in one function's bundle: work that depends only on the sources, done once
 * here instead of at every cold start. The tool server gets its tools' JSON Schemas
 * (lib/mcp/tool-json-schemas.ts), the OpenAPI document's function the document
 * (infra/bundled-openapi-document.ts). Each is computed at every bundling from the same sources,
 * in a child process (once per process): the tool definitions import the table client, which
 * reads TABLE_NAME at load.
 */
export function bundleDefines(entry: string): Record<string, string> {
  const bundled = BUNDLED_CONSTANTS[entry];
  if (!bundled) return {};
  let text = computed.get(bundled.constant);
  if (text === undefined) {
    text = execFileSync(
      process.execPath,
      ['--import', 'tsx', join(ROOT_DIR, 'infra', 'print-bundled-constant.ts'), bundled.constant],
      {
        cwd: ROOT_DIR,
        env: { ...process.env, TABLE_NAME: process.env.TABLE_NAME ?? 'not-read' },
        encoding: 'utf8',
      },
    );
    computed.set(bundled.constant, text);
  }
  const value = JSON.stringify(text);
  if (value.length > MAX_DEFINE_BYTES) {
    throw new Error(
      `${bundled.constant} takes ${value.length} bytes, more than one esbuild --define argument may (${MAX_DEFINE_BYTES}): pack it smaller or ship it as a file beside the bundle`,
    );
  }
  return { [bundled.name]: value };
}
