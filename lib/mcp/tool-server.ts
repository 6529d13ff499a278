import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { assertScope } from '#lib/auth/assistant-token.ts';
import type { AssistantPrincipal } from '#lib/auth/principal.ts';
import { optionalEnv } from '#lib/config/env.ts';
import { HttpError, type ValidationIssue } from '#lib/http/errors.ts';
import { TOOL_SERVER_INSTRUCTIONS, type ToolDefinition, tools } from '#lib/mcp/tools.ts';
import { issuer, resourceChallenge, resources } from '#lib/oauth/settings.ts';
import { logger } from '#lib/observability/logger.ts';

/**
 * POST /mcp (DESIGN §10): MCP Streamable HTTP, stateless, JSON responses, served by the MCP SDK's
 * web-standard transport inside one Lambda invocation: a fresh server and transport per request
 * (the SDK's stateless pattern), bound to the caller, so the tools act as the assistant's user and
 * never see its token.
 */
const SERVER_INFO = { name: 'business-platform', version: '1.0.0' };
const toolScopes = new Map(tools.map((tool) => [tool.name, tool.scope]));

/** Origins a browser page may call from (DNS rebinding protection); other Origins get 403. */
const allowedOrigins = () =>
  (optionalEnv('MCP_ALLOWED_ORIGINS') ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean)
    .concat(new URL(issuer()).origin);

export interface McpHttpResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export async function handleMcpRequest(
  principal: AssistantPrincipal,
  headers: Record<string, string | undefined>,
  body: unknown,
): Promise<McpHttpResponse> {
  assertToolScopes(principal, body);
  const unknown = unknownToolCall(body);
  if (unknown) return unknown;
  const server = buildToolServer(principal);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    enableDnsRebindingProtection: true,
    allowedOrigins: allowedOrigins(),
  });
  await server.connect(transport);
  try {
    const request = new Request(resources().mcp, {
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

/**
 * A tools/call for a tool the token's scopes do not allow is refused at the HTTP level, 403
 * insufficient_scope naming the scope, so that the client can ask the person for more (MCP
 * authorization: step-up).
 */
function assertToolScopes(principal: AssistantPrincipal, body: unknown): void {
  const messages = Array.isArray(body) ? body : [body];
  for (const message of messages) {
    const call = message as { method?: unknown; params?: { name?: unknown } } | null;
    if (call?.method !== 'tools/call' || typeof call.params?.name !== 'string') continue;
    assertScope(principal, toolScopes.get(call.params.name), resourceChallenge(resources().mcp));
  }
}

/**
 * A tools/call naming no tool of ours is a JSON-RPC error -32602, as the MCP specification lists
 * unknown tools among protocol errors (the SDK's McpServer would answer a tool result instead).
 */
function unknownToolCall(body: unknown): McpHttpResponse | undefined {
  const call = body as {
    jsonrpc?: unknown;
    id?: unknown;
    method?: unknown;
    params?: { name?: unknown };
  } | null;
  if (call?.method !== 'tools/call' || typeof call.params?.name !== 'string') return undefined;
  if (toolScopes.has(call.params.name)) return undefined;
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: call.id ?? null,
      error: {
        code: -32602,
        message: `Unknown tool: ${call.params.name}. tools/list names the tools there are.`,
      },
    }),
  };
}

export function buildToolServer(principal: AssistantPrincipal): McpServer {
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: TOOL_SERVER_INSTRUCTIONS,
  });
  for (const tool of tools as ToolDefinition[]) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: { title: tool.title, ...tool.annotations, openWorldHint: false },
      },
      async (input: unknown): Promise<CallToolResult> => {
        try {
          const { data, summary } = await tool.run(principal, input as never);
          return {
            content: [{ type: 'text', text: summary }],
            structuredContent: data as Record<string, unknown>,
          };
        } catch (error) {
          return toolError(tool.name, error);
        }
      },
    );
  }
  return server;
}

/** A domain failure as a tool result an assistant can act on (isError), never a protocol error. */
function toolError(toolName: string, error: unknown): CallToolResult {
  if (!(error instanceof HttpError) || error.statusCode >= 500) {
    if (!(error instanceof HttpError)) logger.error('Tool failed', { toolName, error: error as Error });
    const busy = error instanceof HttpError && error.statusCode === 503;
    return errorResult(
      busy
        ? 'The service is busy right now; wait a few seconds and call the tool again.'
        : 'The service failed unexpectedly; try again, and tell the person if it keeps failing.',
    );
  }
  const issues = Array.isArray(error.details) ? (error.details as ValidationIssue[]) : [];
  const listed = issues
    .slice(0, 10)
    .map((issue) => `${issue.loc.join('.')}: ${issue.msg}`)
    .join('; ');
  return errorResult(
    `${error.message}${listed && !error.message.includes(listed) ? ` (${listed})` : ''}. ${nextStep(error)}`,
  );
}

function nextStep(error: HttpError): string {
  switch (error.statusCode) {
    case 403:
      return 'The person you act for must be an owner or editor of this business; list_businesses shows the ones they can edit.';
    case 404:
      return 'Check the id: list_businesses, get_snapshot, get_changeset and read_change_log give valid ones.';
    case 409:
      return /session/i.test(error.message)
        ? 'Open a new session with open_edit_session and continue there.'
        : 'Read the current state (get_changeset, get_snapshot or read_record) and decide again from it.';
    case 422:
      return 'Fix the fields named and call again; nothing was changed.';
    default:
      return 'Nothing was changed.';
  }
}

const errorResult = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });
