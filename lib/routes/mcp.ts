import type { RouteDefinition } from '#lib/http/route.ts';
import * as z from '#lib/validation/zod.ts';

const optionalHeader = z.optional(z.string().check(z.maxLength(2000)));

/** The headers the MCP transport reads; the rest are dropped. */
const McpHeaders = z.object({
  accept: optionalHeader,
  'content-type': optionalHeader,
  'mcp-protocol-version': optionalHeader,
  // MCP 2026-07-28 mirrors the method and the tool's name into these; the transport holds them to the body.
  'mcp-method': optionalHeader,
  'mcp-name': optionalHeader,
  'mcp-session-id': optionalHeader,
  origin: optionalHeader,
  host: optionalHeader,
});

/** One JSON-RPC message or a batch; the MCP transport judges them and answers JSON-RPC errors. */
const JsonRpcBody = z.meta(z.unknown(), {
  id: 'JsonRpcMessage',
  description:
    'An MCP JSON-RPC 2.0 request or notification: legacy revisions (2024-10-07 to 2025-11-25: initialize, ping, tools/list, tools/call; batches in 2025-03-26 only) or 2026-07-28 (server/discover, tools/list, tools/call, with the protocol version and client capabilities in params._meta)',
});

/**
 * The assistant tool server: one JSON-RPC endpoint, not a REST resource. It takes an
 * assistant's access token for `<issuer>/mcp`; GET and DELETE are refused (no event streams, no
 * sessions: every POST stands alone).
 */
export const mcpRoutes = {
  handleMcp: {
    operationId: 'handleMcp',
    method: 'POST',
    path: '/mcp',
    handler: 'functions/mcp/handle-mcp.ts',
    area: 'mcp',
    summary: 'The assistant tool server (MCP Streamable HTTP, stateless, JSON responses)',
    description:
      'Not a REST operation: MCP clients POST JSON-RPC messages here with `Accept: application/json, text/event-stream`, in any MCP revision from 2024-10-07 to 2026-07-28: legacy clients open with initialize; 2026-07-28 clients send server/discover, tools/list and tools/call with `MCP-Protocol-Version`, `Mcp-Method` and (for tools/call) `Mcp-Name` headers that must match the body, or get a 400. The tools are the edits API for assistants: list_businesses, open_edit_session, get_snapshot, read_record, propose_changes, set_change_ticked, get_changeset, apply_changes, discard_changes, revert_changes, read_change_log, undo_change. A 401 names the protected resource metadata; a tools/call the token’s scopes do not allow is a 403 insufficient_scope. GET and DELETE answer 405.',
    auth: 'mcp',
    envelope: 'bare',
    cors: 'any-origin',
    rejectsMethods: ['GET', 'DELETE'],
    successStatus: 200,
    request: { headers: McpHeaders, body: JsonRpcBody },
    example: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    response: z.meta(z.unknown(), {
      id: 'JsonRpcResponse',
      description: 'The JSON-RPC response (202, empty, for a notification)',
    }),
    // 406: the MCP transport refuses a request whose Accept omits application/json or text/event-stream.
    // 404: a 2026-07-28 request of a method the server does not have (JSON-RPC -32601).
    errors: [403, 404, 405, 406],
    permissions: { table: 'readwrite' },
    timeoutSeconds: 28,
  },
} as const satisfies Record<string, RouteDefinition>;
