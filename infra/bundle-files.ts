import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REVIEW_VIEW_FILE } from '#lib/mcp/review-view.ts';
import { TOOL_JSON_SCHEMAS_FILE } from '#lib/mcp/tool-json-schemas.ts';
import { docsRoutes } from '#lib/routes/docs.ts';
import { mcpRoutes } from '#lib/routes/mcp.ts';
import { OPENAPI_DOCUMENT_FILE } from './bundled-openapi-document.ts';
import { ROOT_DIR } from './local/paths.ts';

/**
 * The files a function's bundle carries beside its code (lib/config/bundled-file.ts), by function
 * entry: what depends only on the sources, built at every bundling instead of at every cold start.
 * The tool server gets its changeset review view and its tools' JSON Schemas, the OpenAPI
 * document's function the document. CDK's staging writes them beside each bundle (infra/batch-bundling.ts), the
 * bench and the bundle tests after their own esbuild call (bench/cold-start.ts), the local harness
 * into its task root at start: all with infra/write-bundle-files.ts.
 */
const BUNDLE_FILES: Record<string, readonly string[]> = {
  [mcpRoutes.handleMcp.handler]: [REVIEW_VIEW_FILE, TOOL_JSON_SCHEMAS_FILE],
  [docsRoutes.getOpenApiDocument.handler]: [OPENAPI_DOCUMENT_FILE],
};

/** The files one function's bundle carries. */
export const bundleFiles = (entry: string): readonly string[] => BUNDLE_FILES[entry] ?? [];

/** Every function's files: what the local harness, which runs every function, writes. */
export const allBundleFiles = (): string[] => [...new Set(Object.values(BUNDLE_FILES).flat())];

/** The writer, run by the same Node.js and tsx that run the caller. */
const writerCommand = (directory: string, files: readonly string[]) => [
  process.execPath,
  '--import',
  'tsx',
  join(ROOT_DIR, 'infra', 'write-bundle-files.ts'),
  directory,
  ...files,
];

/** Writes one function's files into its bundle's directory, as CDK stages it (infra/batch-bundling.ts). */
export function writeBundleFilesSync(entry: string, outputDir: string): void {
  const files = bundleFiles(entry);
  if (files.length === 0) return;
  const [command, ...args] = writerCommand(outputDir, files);
  execFileSync(command as string, args, { cwd: ROOT_DIR, stdio: 'inherit' });
}

const run = promisify(execFile);

/** Writes the given files into a directory, in a child process as CDK's staging does. */
export async function writeBundleFiles(directory: string, files: readonly string[]): Promise<void> {
  if (files.length === 0) return;
  const [command, ...args] = writerCommand(directory, files);
  await run(command as string, args, { cwd: ROOT_DIR });
}
