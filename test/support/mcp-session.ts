import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'vitest';
import { callbackParams, MemoryProvider } from './mcp-client.ts';
import { approveAuthorization } from './oauth.ts';

/**
 * What a client that wants refresh tokens asks for: the scopes the tool server names in its
 * challenge, plus `offline_access`, which the authorization server's metadata lists (an MCP client
 * MAY add it, and a resource never names it).
 */
export const OFFLINE_MCP_SCOPE = 'edits:read edits:write offline_access';

/**
 * An MCP SDK Client connected to the tool server as an assistant would be: the first connect
 * meets the 401, discovers, registers (or presents its metadata document) and asks for consent;
 * the person approves (through the consent API, as the console does); the transport finishes
 * the authorization and the client connects again, now with tokens. The SDK's transports ask for
 * the challenge's scopes only, so the grant is a session without a refresh token. With
 * `offlineAccess` the client starts the authorization itself with the SDK's `auth()` and
 * OFFLINE_MCP_SCOPE, and gets a refresh token.
 */
export async function connectAssistant(options: {
  baseUrl: string;
  userToken: string;
  provider?: MemoryProvider;
  offlineAccess?: boolean;
}) {
  const provider = options.provider ?? new MemoryProvider();
  const url = new URL('/mcp', options.baseUrl);
  const client = new Client({ name: 'bps-test-assistant', version: '1.0.0' });
  let authorizationUrl: URL;
  if (options.offlineAccess) {
    expect(await auth(provider, { serverUrl: url, scope: OFFLINE_MCP_SCOPE })).toBe('REDIRECT');
    authorizationUrl = provider.authorizationUrls.at(-1) as URL;
    const { callback } = await approveAuthorization(authorizationUrl, options.userToken);
    const code = callbackParams(callback).code as string;
    expect(await auth(provider, { serverUrl: url, authorizationCode: code })).toBe('AUTHORIZED');
  } else {
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await expect(client.connect(first)).rejects.toThrow(UnauthorizedError);
    authorizationUrl = provider.authorizationUrls.at(-1) as URL;
    const { callback } = await approveAuthorization(authorizationUrl, options.userToken);
    await first.finishAuth(callbackParams(callback).code as string);
  }

  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  await client.connect(transport);
  return { client, provider, authorizationUrl };
}
