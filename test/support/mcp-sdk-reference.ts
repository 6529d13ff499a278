import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AssistantPrincipal } from '#lib/auth/principal.ts';
import { readReviewView, reviewViewResource } from '#lib/mcp/review-view.ts';
import type { McpHttpResponse } from '#lib/mcp/streamable-http.ts';
import { TOOL_SERVER_INSTRUCTIONS, type ToolDefinition, tools } from '#lib/mcp/tools.ts';

/**
 * The tool server as the MCP SDK served it before lib/mcp/streamable-http.ts replaced it: McpServer
 * with our tools behind WebStandardStreamableHTTPServerTransport (stateless, JSON responses), a
 * fresh pair per request. The reference that test/unit/mcp-sdk-parity.test.ts compares our own
 * answers with; the tools run as they do in the service.
 *
 * One change to the SDK's answers: McpServer converts tool schemas with its own
 * toJsonSchemaCompat but without a target, so it publishes draft-07, where MCP (2025-11-25 and
 * later) defines JSON Schema 2020-12 and the tool server publishes that. The reference re-emits
 * the tools/list schemas with the same SDK function given the 2020-12 target, which is the SDK
 * with that call fixed (typescript-sdk issue 2084); everything else is the SDK's answer as sent.
 * Its resource is the changeset review view, registered as McpServer takes it.
 */
export async function sdkToolServer(
  principal: AssistantPrincipal,
  headers: Record<string, string | undefined>,
  body: unknown,
  allowedOrigins: string[],
  /** `false`: the server as it was before it had a view (no resource, no tool `_meta`). */
  options: { withReviewView?: boolean } = {},
): Promise<McpHttpResponse> {
  const withReviewView = options.withReviewView ?? true;
  const server = new McpServer(
    { name: 'business-platform', version: '1.0.0' },
    { capabilities: { tools: {} }, instructions: TOOL_SERVER_INSTRUCTIONS },
  );
  for (const tool of tools as ToolDefinition[]) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input(),
        outputSchema: tool.output(),
        annotations: { title: tool.title, ...tool.annotations, openWorldHint: false },
        ...(withReviewView && tool._meta ? { _meta: tool._meta } : {}),
      },
      async (input: unknown): Promise<CallToolResult> => {
        const { data, summary } = await tool.run(principal, input as never);
        return {
          content: [{ type: 'text', text: summary }],
          structuredContent: data as Record<string, unknown>,
        };
      },
    );
  }
  if (withReviewView) {
    const { uri, name, ...view } = reviewViewResource;
    server.registerResource(name, uri, view, () => readReviewView());
  }
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    enableDnsRebindingProtection: true,
    allowedOrigins,
  });
  await server.connect(transport);
  try {
    const request = new Request('https://api.example.com/mcp', {
      method: 'POST',
      headers: Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined),
      body: JSON.stringify(body),
    });
    const response = await transport.handleRequest(request, { parsedBody: body });
    return {
      statusCode: response.status,
      headers: Object.fromEntries(response.headers),
      body: withSchemasIn2020(await response.text()),
    };
  } finally {
    await server.close();
  }
}

const toolsByName = new Map((tools as ToolDefinition[]).map((tool) => [tool.name, tool]));

/** The body with each listed tool's schemas converted by the SDK for JSON Schema 2020-12. */
function withSchemasIn2020(body: string): string {
  if (!body.includes('"inputSchema"')) return body;
  const parsed = JSON.parse(body) as unknown;
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    const listed = (message as { result?: { tools?: Record<string, unknown>[] } }).result?.tools ?? [];
    for (const entry of listed) {
      const tool = toolsByName.get(entry.name as string) as ToolDefinition;
      entry.inputSchema = toJsonSchemaCompat(tool.input(), {
        target: 'draft-2020-12',
        pipeStrategy: 'input',
      });
      entry.outputSchema = toJsonSchemaCompat(tool.output(), {
        target: 'draft-2020-12',
        pipeStrategy: 'output',
      });
    }
  }
  return JSON.stringify(parsed);
}
