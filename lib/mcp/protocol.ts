import type {
  JSONRPCErrorResponse,
  JSONRPCNotification,
  JSONRPCRequest,
  RequestId,
  Result,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * The JSON-RPC layer of MCP that the tool server needs (MCP specification 2025-11-25, "Base
 * Protocol" → "Messages", and "Lifecycle" → "Version Negotiation"): what a well-formed message is,
 * the error codes, and which protocol version a session speaks. Pure logic, no I/O.
 *
 * Why our own and not the MCP SDK's server: importing the SDK's server builds zod schemas for the
 * whole protocol at module load, which every cold start of POST /mcp would pay and no tool call
 * needs (docs/tool-server.md). The SDK stays the reference: its types are
 * imported as types only (free at run time), and test/unit/mcp-protocol.test.ts holds the constants
 * below to the SDK's own values, so an SDK upgrade that changes them fails a test.
 */

/** The newest version we speak; the answer to a client asking for one we do not know. */
export const LATEST_PROTOCOL_VERSION = '2025-11-25';

/** Every version a client may ask for at initialize or name in the mcp-protocol-version header. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  LATEST_PROTOCOL_VERSION,
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];

/** JSON-RPC 2.0 error codes (§5.1), and the one the SDK uses for refusals at the HTTP level. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** The SDK's code for a transport-level refusal (bad Origin, Accept, Content-Type, version). */
  ConnectionClosed: -32000,
} as const;

/** A message from the client, sorted by kind; a client's response to us is only acknowledged. */
export type ClientMessage =
  | { kind: 'request'; message: JSONRPCRequest }
  | { kind: 'notification'; message: JSONRPCNotification }
  | { kind: 'response' };

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const hasOnly = (value: Json, keys: readonly string[]) =>
  Object.keys(value).every((key) => keys.includes(key));

/** A request id is a string or an integer (MCP excludes JSON-RPC's null). */
const isRequestId = (value: unknown): value is RequestId =>
  typeof value === 'string' || Number.isSafeInteger(value);

/**
 * `params` and `result` are objects; their `_meta`, when present, is an object whose progress
 * token is a string or an integer and whose related task names a taskId.
 */
function hasValidMeta(value: Json): boolean {
  if (value._meta === undefined) return true;
  if (!isObject(value._meta)) return false;
  const { progressToken, 'io.modelcontextprotocol/related-task': relatedTask } = value._meta;
  if (progressToken !== undefined && !isRequestId(progressToken)) return false;
  return relatedTask === undefined || (isObject(relatedTask) && typeof relatedTask.taskId === 'string');
}

const hasValidParams = (message: Json) =>
  message.params === undefined || (isObject(message.params) && hasValidMeta(message.params));

/**
 * Sorts one JSON-RPC message by kind, or undefined when it is none of them: a request (id and
 * method), a notification (method, no id), a result or an error response. No member beyond the
 * kind's own is allowed, as in the SDK's schema.
 */
export function classifyMessage(value: unknown): ClientMessage | undefined {
  if (!isObject(value) || value.jsonrpc !== '2.0') return undefined;
  if (typeof value.method === 'string') {
    if (!hasValidParams(value)) return undefined;
    if (hasOnly(value, ['jsonrpc', 'id', 'method', 'params']) && isRequestId(value.id)) {
      return { kind: 'request', message: value as JSONRPCRequest };
    }
    if (hasOnly(value, ['jsonrpc', 'method', 'params'])) {
      return { kind: 'notification', message: value as JSONRPCNotification };
    }
    return undefined;
  }
  if ('result' in value) {
    const valid =
      hasOnly(value, ['jsonrpc', 'id', 'result']) &&
      isRequestId(value.id) &&
      isObject(value.result) &&
      hasValidMeta(value.result);
    return valid ? { kind: 'response' } : undefined;
  }
  const { error } = value;
  const valid =
    hasOnly(value, ['jsonrpc', 'id', 'error']) &&
    (value.id === undefined || isRequestId(value.id)) &&
    isObject(error) &&
    Number.isSafeInteger(error.code) &&
    typeof error.message === 'string';
  return valid ? { kind: 'response' } : undefined;
}

/**
 * An initialize request whose params are well formed: the version the client asks for, its
 * capabilities, and its name and version. The transport treats only these as initialization.
 */
export function isInitializeRequest(message: ClientMessage): boolean {
  if (message.kind !== 'request' || message.message.method !== 'initialize') return false;
  const params = message.message.params as Json | undefined;
  return (
    params !== undefined &&
    typeof params.protocolVersion === 'string' &&
    isObject(params.capabilities) &&
    isObject(params.clientInfo) &&
    typeof params.clientInfo.name === 'string' &&
    typeof params.clientInfo.version === 'string'
  );
}

/** Version negotiation: the client's version when we speak it, else our latest. */
export const negotiateVersion = (requested: string): string =>
  SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;

/** A result response; members in the order the SDK writes them, so answers stay byte-identical. */
export const resultResponse = (id: RequestId, result: Result) => ({ result, jsonrpc: '2.0' as const, id });

export const errorResponse = (id: RequestId, code: number, message: string): JSONRPCErrorResponse => ({
  jsonrpc: '2.0',
  id,
  error: { code, message },
});

export type RpcResponse = ReturnType<typeof resultResponse> | JSONRPCErrorResponse;
