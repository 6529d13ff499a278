import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REVIEW_VIEW_FILE } from '#lib/mcp/review-view.ts';
import { TOOL_JSON_SCHEMAS_FILE } from '#lib/mcp/tool-json-schemas.ts';
import type { ToolDefinition } from '#lib/mcp/tools.ts';
import { OPENAPI_DOCUMENT_FILE } from './bundled-openapi-document.ts';

/**
 * `tsx infra/write-bundle-files.ts DIR FILE…`: writes the named files a function's bundle carries
 * beside its code (infra/bundle-files.ts) into DIR, each built from the sources. Each builder is
 * imported only when its file is asked for.
 */
const builders: Record<string, () => Promise<string>> = {
  [REVIEW_VIEW_FILE]: async () => (await import('../mcp-app/build-review-view.ts')).buildReviewViewHtml(),
  [TOOL_JSON_SCHEMAS_FILE]: async () => {
    // The tool definitions import the table client, which reads TABLE_NAME at load; no table is read here.
    process.env.TABLE_NAME ??= 'not-read';
    const [{ convertToolSchemas }, { tools }] = await Promise.all([
      import('#lib/mcp/tool-json-schemas.ts'),
      import('#lib/mcp/tools.ts'),
    ]);
    return JSON.stringify(convertToolSchemas(tools as ToolDefinition[]));
  },
  [OPENAPI_DOCUMENT_FILE]: async () => JSON.stringify((await import('./openapi.ts')).buildOpenApiDocument()),
};

const [directory, ...files] = process.argv.slice(2);
const unknown = files.filter((file) => !(file in builders));
if (!directory || files.length === 0 || unknown.length > 0) {
  console.error(`usage: write-bundle-files.ts DIRECTORY (${Object.keys(builders).join('|')})…`);
  process.exit(1);
}
mkdirSync(directory, { recursive: true });
for (const file of files) {
  writeFileSync(join(directory, file), await (builders[file] as () => Promise<string>)());
}
console.error(`bundle files: ${files.join(', ')} in ${directory}`);
