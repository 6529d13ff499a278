import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AssistantPrincipal } from '#lib/auth/principal.ts';
import type { McpHttpResponse } from '#lib/mcp/streamable-http.ts';
import { TOOL_SERVER_INSTRUCTIONS, type ToolDefinition, tools } from '#lib/mcp/tools.ts';

/**
 * The tool server as the MCP SDK served it before lib/mcp/streamable-http.ts replaced it: McpServer
 * with our tools behind WebStandardStreamableHTTPServerTransport (stateless, JSON responses), a
 * fresh pair per request. The reference that test/unit/mcp-sdk-parity.test.ts compares our own
 * answers with; the tools run as they do in the service.
 */
export async function sdkToolServer(
  principal: AssistantPrincipal,
  headers: Record<string, string | undefined>,
  body: unknown,
  allowedOrigins: string[],
): Promise<McpHttpResponse> {
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
      body: await response.text(),
    };
  } finally {
    await server.close();
  }
}
