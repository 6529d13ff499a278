import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/** What one POST to /mcp answers: a status, headers and a JSON body (or none). */
export interface McpHttpResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/** A JSON body with its status. */
export const jsonResponse = (statusCode: number, body: unknown): McpHttpResponse => ({
  statusCode,
  headers: JSON_HEADERS,
  body: JSON.stringify(body),
});

/** A JSON-RPC error for the whole POST; `id` null when no request's id could be read. */
export const refusal = (statusCode: number, code: number, message: string, id: RequestId | null = null) =>
  jsonResponse(statusCode, { jsonrpc: '2.0', error: { code, message }, id });

/** A notification or a client's response taken: 202, no body. */
export const accepted = (): McpHttpResponse => ({ statusCode: 202, headers: {}, body: '' });
