import type { Tool } from '@modelcontextprotocol/sdk/types.js';
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
 * every entity's fields), so the bundled tool server carries the result: the bundler computes it
 * from these same schemas (infra/bundling.ts) and defines `BUNDLED_TOOL_JSON_SCHEMAS` as its JSON
 * text. Run from source (tests, the local harness), the schemas are converted on first use.
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

/** The JSON text the bundler defines in the tool server's bundle; absent when run from source. */
declare const BUNDLED_TOOL_JSON_SCHEMAS: string | undefined;

/** The tools' JSON Schemas by tool name: the bundled ones, or converted now from source. */
export function toolJsonSchemas(tools: readonly ToolDefinition[]): Record<string, ToolJsonSchemas> {
  return typeof BUNDLED_TOOL_JSON_SCHEMAS === 'string'
    ? (JSON.parse(BUNDLED_TOOL_JSON_SCHEMAS) as Record<string, ToolJsonSchemas>)
    : convertToolSchemas(tools);
}
