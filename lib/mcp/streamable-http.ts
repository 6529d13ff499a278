import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { parseMediaType } from '#lib/http/media-type.ts';
import {
  type ClientMessage,
  classifyMessage,
  ErrorCode,
  isInitializeRequest,
  MAX_BATCH_SIZE,
  type RpcResponse,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '#lib/mcp/protocol.ts';

/**
 * One POST of the MCP Streamable HTTP transport (MCP specification 2025-11-25, "Transports" →
 * "Streamable HTTP" → "Sending Messages to the Server", "Protocol Version Header" and "Security
 * Warning"), in the one mode this server uses: stateless (no Mcp-Session-Id) and answering every
 * request with a JSON body, never an SSE stream. The checks, their order and their answers are
 * those of the MCP SDK's WebStandardStreamableHTTPServerTransport with enableJsonResponse, so that
 * clients see the same thing they saw when the SDK served this endpoint.
 */
export interface McpHttpResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export interface PostOptions {
  /** Origins a browser page may call from (DNS rebinding protection); other Origins get 403. */
  allowedOrigins: readonly string[];
  /** The answer to one request; notifications and the client's responses need none. */
  answer(request: JSONRPCRequest): Promise<RpcResponse>;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/** A refusal before any message is handled: a JSON-RPC error without an id. */
const refusal = (statusCode: number, code: number, message: string): McpHttpResponse => ({
  statusCode,
  headers: JSON_HEADERS,
  body: JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }),
});

/**
 * Handles one POST whose body the pipeline has already parsed as JSON (undefined when empty).
 * A body of notifications and responses only is 202 with no content; otherwise 200 with the
 * response to the one request, or the array of responses to a batch's requests in their order.
 */
export async function handlePost(
  headers: Record<string, string | undefined>,
  body: unknown,
  options: PostOptions,
): Promise<McpHttpResponse> {
  const { origin, accept } = headers;
  if (origin !== undefined && !options.allowedOrigins.includes(origin)) {
    return refusal(403, ErrorCode.ConnectionClosed, `Invalid Origin header: ${origin}`);
  }
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
    return refusal(
      406,
      ErrorCode.ConnectionClosed,
      'Not Acceptable: Client must accept both application/json and text/event-stream',
    );
  }
  if (parseMediaType(headers['content-type'])?.essence !== 'application/json') {
    return refusal(
      415,
      ErrorCode.ConnectionClosed,
      'Unsupported Media Type: Content-Type must be application/json',
    );
  }
  if (body === undefined) return refusal(400, ErrorCode.ParseError, 'Parse error: Invalid JSON');
  if (Array.isArray(body) && body.length > MAX_BATCH_SIZE) {
    return refusal(
      400,
      ErrorCode.InvalidRequest,
      `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`,
    );
  }

  const messages = (Array.isArray(body) ? body : [body]).map(classifyMessage);
  if (!messages.every((message) => message !== undefined)) {
    return refusal(400, ErrorCode.ParseError, 'Parse error: Invalid JSON-RPC message');
  }
  const refused = lifecycleRefusal(messages, headers['mcp-protocol-version']);
  if (refused) return refused;

  const requests = messages.flatMap((message) => (message.kind === 'request' ? [message.message] : []));
  if (requests.length === 0) return { statusCode: 202, headers: {}, body: '' };
  const responses = await Promise.all(requests.map((request) => options.answer(request)));
  return {
    statusCode: 200,
    headers: JSON_HEADERS,
    body: JSON.stringify(responses.length === 1 ? responses[0] : responses),
  };
}

/**
 * An initialize request must come alone; any other POST that names a protocol version in the
 * mcp-protocol-version header must name one we speak (a POST without it is taken as the version
 * negotiated at initialize).
 */
function lifecycleRefusal(
  messages: ClientMessage[],
  version: string | undefined,
): McpHttpResponse | undefined {
  if (messages.some(isInitializeRequest)) {
    return messages.length > 1
      ? refusal(400, ErrorCode.InvalidRequest, 'Invalid Request: Only one initialization request is allowed')
      : undefined;
  }
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return refusal(
      400,
      ErrorCode.ConnectionClosed,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
    );
  }
  return undefined;
}
