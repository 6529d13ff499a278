import { api } from './api.ts';
import { postForm } from './oauth.ts';

/**
 * Whether an assistant's tokens still work, asked the way the assistant would: an access token at
 * the tool server (tools/list), a refresh token at the token endpoint.
 */
export async function mcpStatus(accessToken: string): Promise<number> {
  const response = await api('POST', '/mcp', {
    token: accessToken,
    headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    json: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
  });
  return response.status;
}

/** The token endpoint's answer to a refresh: the new tokens, or `{error}` with status 400. */
export function refresh(refreshToken: string, clientId: string) {
  return postForm('/oauth/token', {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: clientId,
  });
}
