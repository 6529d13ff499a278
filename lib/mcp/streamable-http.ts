import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { parseMediaType } from '#lib/http/media-type.ts';
import {
  acceptsBatch,
  BATCH_CONCURRENCY,
  BATCH_PROTOCOL_VERSION,
  MAX_BATCH_SIZE,
  mapBounded,
} from '#lib/mcp/batch.ts';
import { detectEra } from '#lib/mcp/era.ts';
import { accepted, jsonResponse, type McpHttpResponse, refusal } from '#lib/mcp/http-response.ts';
import { handleModernPost } from '#lib/mcp/modern-http.ts';
import {
  type ClientMessage,
  classifyMessage,
  ErrorCode,
  isInitializeRequest,
  type RpcResponse,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '#lib/mcp/protocol.ts';
import type { RequestMeta } from '#lib/mcp/request-meta.ts';

/**
 * One POST of the MCP Streamable HTTP transport to /mcp, for clients of either era (era.ts), in
 * the one mode this server uses: stateless (no Mcp-Session-Id) and answering every request with
 * a JSON body, never an SSE stream. Both eras share the first checks (Origin, Accept,
 * Content-Type, a JSON body); then a modern POST follows MCP 2026-07-28 (modern-http.ts) and a
 * legacy one the revisions up to 2025-11-25 ("Transports" → "Streamable HTTP" → "Sending Messages
 * to the Server", "Protocol Version Header" and "Security Warning"), with checks, order and
 * answers those of the MCP SDK's WebStandardStreamableHTTPServerTransport with enableJsonResponse,
 * so that legacy clients see what they saw when the SDK served this endpoint; batches are the one
 * exception (batch.ts).
 */
export type { McpHttpResponse };

export interface PostOptions {
  /** Origins a browser page may call from (DNS rebinding protection); other Origins get 403. */
  allowedOrigins: readonly string[];
  /** The answer to one legacy request; notifications and the client's responses need none. */
  answerLegacy(request: JSONRPCRequest): Promise<RpcResponse>;
  /** The answer to one modern request, with its per-request protocol fields. */
  answerModern(request: JSONRPCRequest, meta: RequestMeta): Promise<RpcResponse>;
}

/** Handles one POST whose body the pipeline has already parsed as JSON (undefined when empty). */
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
  return detectEra(headers['mcp-protocol-version'], body) === 'modern'
    ? handleModernPost(headers, body, options.answerModern)
    : handleLegacyPost(headers, body, options.answerLegacy);
}

/**
 * A legacy POST: a body of notifications and responses only is 202 with no content; otherwise
 * 200 with the response to the one request, or the array of responses to a batch's requests in
 * their order.
 */
async function handleLegacyPost(
  headers: Record<string, string | undefined>,
  body: unknown,
  answer: PostOptions['answerLegacy'],
): Promise<McpHttpResponse> {
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
  const version = headers['mcp-protocol-version'];
  const refused = lifecycleRefusal(messages, version);
  if (refused) return refused;
  if (Array.isArray(body) && !acceptsBatch(version)) {
    return refusal(
      400,
      ErrorCode.InvalidRequest,
      `Invalid Request: JSON-RPC batches belong to protocol version ${BATCH_PROTOCOL_VERSION} only; protocol version ${version} takes one message per POST`,
    );
  }

  const requests = messages.flatMap((message) => (message.kind === 'request' ? [message.message] : []));
  if (requests.length === 0) return accepted();
  const responses = await mapBounded(requests, BATCH_CONCURRENCY, answer);
  // One request answers as one object even inside a batch, as the SDK answered it.
  return jsonResponse(200, responses.length === 1 ? responses[0] : responses);
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
