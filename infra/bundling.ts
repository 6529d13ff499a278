import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { BUNDLED_TOOL_JSON_SCHEMAS_NAME } from '#lib/mcp/tool-json-schemas.ts';
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

let toolJsonSchemasText: string | undefined;
const MAX_DEFINE_BYTES = 120 * 1024;

/**
 * What esbuild defines in one function's bundle. The tool server's gets its tools' JSON Schemas
 * (lib/mcp/tool-json-schemas.ts), converted here from the same zod schemas at every bundling, so
 * a tools/list at its cold start converts nothing. They are converted in a child process (once per
 * process): the tool definitions import the table client, which reads TABLE_NAME at load.
 */
export function bundleDefines(entry: string): Record<string, string> {
  if (entry !== mcpRoutes.handleMcp.handler) return {};
  toolJsonSchemasText ??= execFileSync(
    process.execPath,
    ['--import', 'tsx', join(ROOT_DIR, 'infra', 'print-tool-json-schemas.ts')],
    {
      cwd: ROOT_DIR,
      env: { ...process.env, TABLE_NAME: process.env.TABLE_NAME ?? 'not-read' },
      encoding: 'utf8',
    },
  );
  const value = JSON.stringify(toolJsonSchemasText);
  // CDK passes each define to esbuild as one command-line argument, which Linux caps at 128 KiB.
  if (value.length > MAX_DEFINE_BYTES) {
    throw new Error(
      `The tools' JSON Schemas take ${value.length} bytes, more than one esbuild --define argument may (${MAX_DEFINE_BYTES}): ship them as a file beside the bundle instead`,
    );
  }
  return { [BUNDLED_TOOL_JSON_SCHEMAS_NAME]: value };
}
