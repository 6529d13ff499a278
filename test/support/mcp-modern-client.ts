/**
 * A client of MCP 2026-07-28, written by hand since no SDK speaks that revision yet: each request
 * carries the protocol version, the client and its capabilities in `params._meta`, and the
 * MCP-Protocol-Version, Mcp-Method and (for tools/call) Mcp-Name headers that mirror the body.
 * `modernPost` builds the POST; `overrides` lets a test break one part of it on purpose.
 */
export const MODERN_VERSION = '2026-07-28';
export const MODERN_CLIENT_INFO = { name: 'bps-modern-test-client', version: '1.0.0' };

export interface ModernPost {
  headers: Record<string, string | undefined>;
  body: Record<string, unknown>;
}

export function modernPost(
  method: string,
  params: Record<string, unknown> = {},
  overrides: {
    id?: string | number;
    meta?: Record<string, unknown>;
    headers?: Record<string, string | undefined>;
  } = {},
): ModernPost {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
    'io.modelcontextprotocol/clientInfo': MODERN_CLIENT_INFO,
    'io.modelcontextprotocol/clientCapabilities': {},
    ...overrides.meta,
  };
  const name = method === 'tools/call' ? { 'mcp-name': String(params.name) } : {};
  return {
    headers: {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': MODERN_VERSION,
      'mcp-method': method,
      ...name,
      ...overrides.headers,
    },
    body: { jsonrpc: '2.0', id: overrides.id ?? 1, method, params: { ...params, _meta: meta } },
  };
}

/** Sends a modern POST over HTTP with the given access token; the answer's status, headers and JSON. */
export async function sendModern(url: string, token: string, post: ModernPost) {
  const headers = Object.fromEntries(
    Object.entries({ ...post.headers, authorization: `Bearer ${token}` }).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    ),
  );
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(post.body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}
