import { convertToolSchemas } from '#lib/mcp/tool-json-schemas.ts';
import { type ToolDefinition, tools } from '#lib/mcp/tools.ts';

/**
 * `tsx infra/print-tool-json-schemas.ts`: prints the tool server's tools' JSON Schemas, by tool
 * name, as JSON, for the bundler to define in the tool server's bundle (infra/bundling.ts). The
 * tool definitions import the table client, which reads TABLE_NAME at load: run it with one set.
 */
process.stdout.write(JSON.stringify(convertToolSchemas(tools as ToolDefinition[])));
