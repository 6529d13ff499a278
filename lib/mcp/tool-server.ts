import type {
  CallToolResult,
  InitializeResult,
  JSONRPCRequest,
  ListToolsResult,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { assertScopes } from '#lib/auth/assistant-token.ts';
import type { AssistantPrincipal } from '#lib/auth/principal.ts';
import { optionalEnv } from '#lib/config/env.ts';
import { HttpError, ServiceUnavailableError, type ValidationIssue } from '#lib/http/errors.ts';
import { discoverResult } from '#lib/mcp/discover.ts';
import { type CacheHint, cacheableResult, completeResult } from '#lib/mcp/modern-results.ts';
import {
  ErrorCode,
  errorResponse,
  negotiateVersion,
  type RpcResponse,
  resultResponse,
} from '#lib/mcp/protocol.ts';
import type { RequestMeta } from '#lib/mcp/request-meta.ts';
import { readReviewView, reviewViewResource } from '#lib/mcp/review-view.ts';
import { handlePost, type McpHttpResponse } from '#lib/mcp/streamable-http.ts';
import { type ToolJsonSchemas, toolJsonSchemas } from '#lib/mcp/tool-json-schemas.ts';
import { TOOL_SERVER_INSTRUCTIONS, type ToolDefinition, tools } from '#lib/mcp/tools.ts';
import { issuer, resourceChallenge, resources } from '#lib/oauth/settings.ts';
import { logger } from '#lib/observability/logger.ts';
import { SIGNAL_FIELDS } from '#lib/observability/signal-fields.ts';

/**
 * POST /mcp: the assistant tool server, MCP Streamable HTTP, stateless, one JSON response per POST
 * (streamable-http.ts), tools only. Each request is answered as the caller, so the tools act as
 * the assistant's user and never see its token. Legacy clients (up to MCP 2025-11-25:
 * "Lifecycle" → initialize, "Utilities" → "Ping", "Server Features" → "Tools") get the answers the
 * MCP SDK's McpServer gave (test/unit/mcp-sdk-parity.test.ts compares them), without loading it
 * (protocol.ts says why); clients of 2026-07-28 get server/discover, tools/list and tools/call as
 * that revision words them (answerModern).
 */
export type { McpHttpResponse };

const SERVER_INFO = { name: 'business-platform', version: '1.0.0' };
/**
 * What McpServer advertised for a server with tools and resources (listChanged as it declared it).
 * The one resource is the changeset review view (MCP Apps), which tools name in `_meta.ui`.
 */
const CAPABILITIES = { tools: { listChanged: true }, resources: { listChanged: true } };
/**
 * What a modern client is told: tools and resources, without listChanged, since this revision
 * delivers change notifications on a subscriptions/listen stream, which a stateless JSON-only
 * server cannot hold.
 */
const MODERN_CAPABILITIES = { tools: {}, resources: {} };
/** The tool list changes only with a deploy: fresh for 5 minutes, the same for every caller. */
const MODERN_CACHE_HINT: CacheHint = { ttlMs: 300_000, cacheScope: 'public' };
const toolsByName = new Map((tools as ToolDefinition[]).map((tool) => [tool.name, tool]));

/** Origins a browser page may call from (DNS rebinding protection); other Origins get 403. */
const allowedOrigins = () =>
  (optionalEnv('MCP_ALLOWED_ORIGINS') ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean)
    .concat(new URL(issuer()).origin);

export async function handleMcpRequest(
  principal: AssistantPrincipal,
  headers: Record<string, string | undefined>,
  body: unknown,
): Promise<McpHttpResponse> {
  assertToolScopes(principal, body);
  return handlePost(headers, body, {
    allowedOrigins: allowedOrigins(),
    answerLegacy: (request) => guarded(request, answer(principal, request)),
    answerModern: (request, meta) => guarded(request, answerModern(principal, request, meta)),
  });
}

/** Tools turn their own failures into results; reaching the catch is a bug of ours. */
const guarded = (request: JSONRPCRequest, answering: Promise<RpcResponse>) =>
  answering.catch((error: unknown) => {
    logger.error('MCP request failed', { method: request.method, error: error as Error });
    return errorResponse(request.id, ErrorCode.InternalError, 'Internal error');
  });

/**
 * A tools/call for a tool the token's scopes do not allow is refused at the HTTP level, 403
 * insufficient_scope, so that the client can ask the person for more (MCP authorization: step-up).
 * The challenge names every scope the POST's calls need (several in a 2025-03-26 batch), so one
 * new authorization is enough.
 */
function assertToolScopes(principal: AssistantPrincipal, body: unknown): void {
  const messages = Array.isArray(body) ? body : [body];
  const needed = messages.flatMap((message) => {
    const call = message as { method?: unknown; params?: { name?: unknown } } | null;
    if (call?.method !== 'tools/call' || typeof call.params?.name !== 'string') return [];
    return toolsByName.get(call.params.name)?.scope ?? [];
  });
  assertScopes(principal, needed, resourceChallenge(resources().mcp));
}

type Params = Record<string, unknown>;

async function answer(principal: AssistantPrincipal, request: JSONRPCRequest): Promise<RpcResponse> {
  const { id, method } = request;
  const params = (request.params ?? {}) as Params;
  switch (method) {
    case 'initialize':
      return typeof params.protocolVersion === 'string'
        ? resultResponse(id, initializeResult(params.protocolVersion))
        : invalidParams(id, 'initialize needs params.protocolVersion, capabilities and clientInfo');
    case 'ping':
      return resultResponse(id, {});
    case 'tools/list':
      return params.cursor === undefined || typeof params.cursor === 'string'
        ? resultResponse(id, (await listTools()).legacy)
        : invalidParams(id, 'params.cursor must be a string');
    case 'tools/call':
      return callTool(principal, id, params);
    case 'resources/list':
      return params.cursor === undefined || typeof params.cursor === 'string'
        ? resultResponse(id, listResources())
        : invalidParams(id, 'params.cursor must be a string');
    // McpServer answers this as soon as it has resources; we have no templates.
    case 'resources/templates/list':
      return resultResponse(id, { resourceTemplates: [] });
    case 'resources/read':
      return readResource(id, params);
    default:
      return errorResponse(id, ErrorCode.MethodNotFound, 'Method not found');
  }
}

/**
 * A modern request (MCP 2026-07-28): `server/discover` instead of initialize, no ping (the
 * revision removed it) and no logging; every result says it is complete and names the server,
 * and the results of discovery and tools/list say how long they stay fresh. They are the same
 * for every caller (tools/list shows every tool to every token; tools/call checks the scope), so
 * a cache may share them across tokens.
 */
async function answerModern(
  principal: AssistantPrincipal,
  request: JSONRPCRequest,
  meta: RequestMeta,
): Promise<RpcResponse> {
  const { id, method } = request;
  const params = (request.params ?? {}) as Params;
  switch (method) {
    case 'server/discover':
      return resultResponse(
        id,
        discoverResult({
          capabilities: MODERN_CAPABILITIES,
          serverInfo: SERVER_INFO,
          instructions: TOOL_SERVER_INSTRUCTIONS,
          cache: MODERN_CACHE_HINT,
        }),
      );
    case 'tools/list':
      return params.cursor === undefined || typeof params.cursor === 'string'
        ? resultResponse(id, cacheableResult((await listTools()).modern, SERVER_INFO, MODERN_CACHE_HINT))
        : invalidParams(id, 'params.cursor must be a string');
    case 'tools/call': {
      logger.debug('MCP tool call', { clientInfo: meta.clientInfo, tool: params.name });
      const response = await callTool(principal, id, params);
      return 'result' in response
        ? resultResponse(id, completeResult(response.result, SERVER_INFO))
        : response;
    }
    case 'resources/list':
      return params.cursor === undefined || typeof params.cursor === 'string'
        ? resultResponse(id, cacheableResult(listResources(), SERVER_INFO, MODERN_CACHE_HINT))
        : invalidParams(id, 'params.cursor must be a string');
    case 'resources/read': {
      const response = await readResource(id, params);
      return 'result' in response
        ? resultResponse(id, completeResult(response.result, SERVER_INFO))
        : response;
    }
    default:
      return errorResponse(id, ErrorCode.MethodNotFound, 'Method not found');
  }
}

/** The resources: the changeset review view, for hosts that render MCP Apps. */
const listResources = () => ({ resources: [reviewViewResource] });

/**
 * resources/read: the view by its URI. Another URI is -32602 worded as McpServer words it; a
 * uri that is not a string, or not a URL, is -32602 too (McpServer would fail with -32603).
 */
async function readResource(id: JSONRPCRequest['id'], params: Params) {
  if (typeof params.uri !== 'string') return invalidParams(id, 'params.uri must be a string');
  if (!URL.canParse(params.uri)) return invalidParams(id, 'params.uri must be a URI');
  const uri = new URL(params.uri).toString();
  if (uri !== reviewViewResource.uri) {
    return errorResponse(id, ErrorCode.InvalidParams, `MCP error -32602: Resource ${uri} not found`);
  }
  return resultResponse(id, await readReviewView());
}

const invalidParams = (id: JSONRPCRequest['id'], message: string) =>
  errorResponse(id, ErrorCode.InvalidParams, `Invalid params: ${message}`);

const initializeResult = (requestedVersion: string): InitializeResult => ({
  protocolVersion: negotiateVersion(requestedVersion),
  capabilities: CAPABILITIES,
  serverInfo: SERVER_INFO,
  instructions: TOOL_SERVER_INSTRUCTIONS,
});

/**
 * The tools as MCP lists them, with the JSON Schemas of their zod schemas
 * (lib/mcp/tool-json-schemas.ts). Legacy clients also get `execution`, which 2026-07-28 moved to
 * the tasks extension. Both lists are built on the first tools/list in a container and kept.
 */
const toolEntry = (
  schemasByName: Record<string, ToolJsonSchemas>,
  tool: ToolDefinition,
  execution?: Tool['execution'],
) => {
  const schemas = schemasByName[tool.name];
  if (!schemas) throw new Error(`No JSON Schemas for the tool ${tool.name}`);
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: schemas.inputSchema,
    annotations: { title: tool.title, ...tool.annotations, openWorldHint: false },
    // Where the SDK puts them, so that the legacy answer stays the SDK's byte for byte.
    ...(execution ? { execution } : {}),
    ...(tool._meta ? { _meta: tool._meta } : {}),
    outputSchema: schemas.outputSchema,
  };
};

let toolLists: { legacy: ListToolsResult; modern: { tools: Tool[] } } | undefined;

async function listTools() {
  if (!toolLists) {
    const schemas = await toolJsonSchemas();
    const all = tools as ToolDefinition[];
    toolLists = {
      // No tool runs as a task (MCP 2025-11-25 "Tasks"): each answers within its request.
      legacy: { tools: all.map((tool): Tool => toolEntry(schemas, tool, { taskSupport: 'forbidden' })) },
      modern: { tools: all.map((tool): Tool => toolEntry(schemas, tool)) },
    };
  }
  return toolLists;
}

/**
 * tools/call: an unknown tool is a JSON-RPC error -32602, as the MCP specification lists unknown
 * tools among protocol errors; arguments the tool's schema refuses, and domain failures, are tool
 * results with isError, which an assistant can read and act on.
 */
async function callTool(principal: AssistantPrincipal, id: JSONRPCRequest['id'], params: Params) {
  const { name, arguments: args } = params;
  if (typeof name !== 'string') return invalidParams(id, 'params.name must be a string');
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    return invalidParams(id, 'params.arguments must be an object');
  }
  const tool = toolsByName.get(name);
  if (!tool) {
    return errorResponse(
      id,
      ErrorCode.InvalidParams,
      `Unknown tool: ${name}. tools/list names the tools there are.`,
    );
  }
  return resultResponse(id, await runTool(principal, tool, args ?? {}));
}

async function runTool(principal: AssistantPrincipal, tool: ToolDefinition, args: object) {
  const input = await tool.input().safeParseAsync(args);
  if (!input.success) {
    return schemaError(
      `Input validation error: Invalid arguments for tool ${tool.name}: ${issueText(input.error)}`,
    );
  }
  let result: { data: unknown; summary: string };
  try {
    result = await tool.run(principal, input.data as never);
  } catch (error) {
    return toolError(tool.name, error);
  }
  // Our own output is checked against the schema we publish, as the SDK did: a mismatch is a bug,
  // answered as a tool error rather than sent to the assistant.
  const output = await tool.output().safeParseAsync(result.data);
  if (!output.success) {
    logger.error('Tool output does not match its schema', { toolName: tool.name, error: output.error });
    return schemaError(
      `Output validation error: Invalid structured content for tool ${tool.name}: ${issueText(output.error)}`,
    );
  }
  return {
    content: [{ type: 'text', text: result.summary }],
    structuredContent: result.data as Record<string, unknown>,
  } satisfies CallToolResult;
}

/** A schema's refusal, worded as the SDK words it: each issue's message and where it is. */
const schemaError = (message: string) => errorResult(`MCP error ${ErrorCode.InvalidParams}: ${message}`);

const issueText = (error: { issues: { message: string; path: PropertyKey[] }[] }) =>
  error.issues
    .map((issue) => (issue.path.length === 0 ? issue.message : `${issue.message} at ${dotPath(issue.path)}`))
    .join('\n');

const dotPath = (path: PropertyKey[]) =>
  path.reduce<string>(
    (text, key, index) =>
      index === 0 ? String(key) : typeof key === 'number' ? `${text}[${key}]` : `${text}.${String(key)}`,
    '',
  );

/** A domain failure as a tool result an assistant can act on (isError), never a protocol error. */
function toolError(toolName: string, error: unknown): CallToolResult {
  if (!(error instanceof HttpError) || error.statusCode >= 500) {
    if (!(error instanceof HttpError)) logger.error('Tool failed', { toolName, error: error as Error });
    const busy = error instanceof HttpError && error.statusCode === 503;
    // The HTTP answer is a 200 carrying the tool's error; the 503 is counted by its cause all the same.
    if (error instanceof ServiceUnavailableError) {
      logger.warn('Tool answered busy', {
        toolName,
        [SIGNAL_FIELDS.unavailableCause]: error.unavailableCause,
      });
    }
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

const errorResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });
