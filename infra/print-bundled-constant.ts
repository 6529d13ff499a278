import { convertToolSchemas } from '#lib/mcp/tool-json-schemas.ts';
import { type ToolDefinition, tools } from '#lib/mcp/tools.ts';
import { packOpenApiDocument } from './bundled-openapi-document.ts';
import { buildOpenApiDocument } from './openapi.ts';

/**
 * `tsx infra/print-bundled-constant.ts NAME`: prints what the bundler defines in a function's
 * bundle (infra/bundling.ts): `tool-json-schemas`, the tool server's tools' JSON Schemas by tool
 * name, as JSON; `openapi-document`, the OpenAPI document, packed. The tool definitions import the
 * table client, which reads TABLE_NAME at load: run it with one set.
 */
const constants: Record<string, () => string> = {
  'tool-json-schemas': () => JSON.stringify(convertToolSchemas(tools as ToolDefinition[])),
  'openapi-document': () => packOpenApiDocument(buildOpenApiDocument()),
};
const print = constants[process.argv[2] ?? ''];
if (!print) {
  console.error(`usage: print-bundled-constant.ts ${Object.keys(constants).join('|')}`);
  process.exit(1);
}
process.stdout.write(print());
