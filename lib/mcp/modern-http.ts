import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { MODERN_PROTOCOL_VERSIONS, metaProtocolVersion } from '#lib/mcp/era.ts';
import { accepted, jsonResponse, type McpHttpResponse, refusal } from '#lib/mcp/http-response.ts';
import { headerMismatch, unsupportedProtocolVersion } from '#lib/mcp/modern-errors.ts';
import { classifyMessage, ErrorCode, errorResponse, type RpcResponse } from '#lib/mcp/protocol.ts';
import { protocolVersionHeaderProblem, requestHeadersProblem } from '#lib/mcp/request-headers.ts';
import { type RequestMeta, readRequestMeta } from '#lib/mcp/request-meta.ts';

/**
 * One POST of a modern client (MCP 2026-07-28, "Streamable HTTP" → "Sending Messages", "Request
 * Metadata" and "Server Validation"; "Versioning" → "Protocol Version Negotiation"), after the
 * checks both eras share (Origin, Accept, Content-Type, a JSON body). Stateless by the revision's
 * own rules: nothing but the request itself says who asks, in which version, with what.
 *
 * The order of the refusals: one message per POST (no batch, no response from the client); the
 * `_meta` protocol version, which the header must repeat, and which we must serve (else the
 * versions we do, so the client can retry); the rest of `_meta`; the method and name headers.
 * A refusal is 400 with the JSON-RPC error, an unknown method 404 with -32601 (so a client can
 * tell a modern server without the method from an endpoint that is not MCP at all).
 */
export async function handleModernPost(
  headers: Record<string, string | undefined>,
  body: unknown,
  answer: (request: JSONRPCRequest, meta: RequestMeta) => Promise<RpcResponse>,
): Promise<McpHttpResponse> {
  if (Array.isArray(body)) {
    return refusal(
      400,
      ErrorCode.InvalidRequest,
      'Invalid Request: protocol version 2026-07-28 takes one JSON-RPC message per POST, not a batch',
    );
  }
  const message = classifyMessage(body);
  if (!message) return refusal(400, ErrorCode.ParseError, 'Parse error: Invalid JSON-RPC message');
  if (message.kind === 'response') {
    return refusal(400, ErrorCode.InvalidRequest, 'Invalid Request: a client sends no JSON-RPC responses');
  }
  // This revision defines no client notification over HTTP; one that arrives is taken and ignored.
  if (message.kind === 'notification') return accepted();

  const request = message.message;
  const version = metaProtocolVersion(request);
  const read = readRequestMeta(request.params);
  if (typeof version !== 'string') return invalidParams(request, 'problem' in read ? read.problem : '');
  const versionProblem = protocolVersionHeaderProblem(headers['mcp-protocol-version'], version);
  if (versionProblem) return jsonResponse(400, headerMismatch(request.id, versionProblem));
  if (!MODERN_PROTOCOL_VERSIONS.includes(version)) {
    return jsonResponse(400, unsupportedProtocolVersion(request.id, version));
  }
  if ('problem' in read) return invalidParams(request, read.problem);
  const mismatch = requestHeadersProblem(headers, request);
  if (mismatch) return jsonResponse(400, headerMismatch(request.id, mismatch));

  const response = await answer(request, read.meta);
  const notFound = 'error' in response && response.error.code === ErrorCode.MethodNotFound;
  return jsonResponse(notFound ? 404 : 200, response);
}

const invalidParams = (request: JSONRPCRequest, problem: string) =>
  jsonResponse(400, errorResponse(request.id, ErrorCode.InvalidParams, `Invalid params: ${problem}`));
