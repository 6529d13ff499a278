import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { bundledFile } from '#lib/config/bundled-file.ts';
import type { ToolDefinition } from '#lib/mcp/tools.ts';
import { toJSONSchema } from '#lib/validation/zod.ts';

/**
 * Each tool's input and output as tools/list publishes them: converted from the zod schemas with
 * zod's own toJSONSchema (the input schema as input, the output schema as output, as the SDK's
 * toJsonSchemaCompat does for zod 4), in JSON Schema 2020-12, the dialect MCP defines for tool
 * schemas since 2025-11-25 (the SDK still emits draft-07, which clients that accept only 2020-12
 * refuse); shared definitions go to `$defs`.
 *
 * Converting every tool's schemas is most of the work of a tools/list (propose_changes alone types
 * every entity's fields), so the tool server's bundle carries the result as a file beside its code
 * (lib/config/bundled-file.ts), converted from these same schemas at every bundling; the tool
 * server itself never converts, so its bundle holds neither the conversion nor zod's converter.
 */
export interface ToolJsonSchemas {
  inputSchema: Tool['inputSchema'];
  outputSchema: Tool['outputSchema'];
}

export function convertToolSchemas(tools: readonly ToolDefinition[]): Record<string, ToolJsonSchemas> {
  return Object.fromEntries(
    tools.map((tool) => [
      tool.name,
      {
        inputSchema: toJSONSchema(tool.input(), {
          target: 'draft-2020-12',
          io: 'input',
        }) as Tool['inputSchema'],
        outputSchema: toJSONSchema(tool.output(), {
          target: 'draft-2020-12',
          io: 'output',
        }) as Tool['outputSchema'],
      },
    ]),
  );
}

/** The file beside the tool server's code: `convertToolSchemas` of every tool, as JSON. */
export const TOOL_JSON_SCHEMAS_FILE = 'tool-json-schemas.json';

/** The tools' JSON Schemas by tool name, read once per container. */
export const toolJsonSchemas = bundledFile(
  TOOL_JSON_SCHEMAS_FILE,
  (text) => JSON.parse(text) as Record<string, ToolJsonSchemas>,
);
