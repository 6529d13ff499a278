import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'vitest';
import { callbackParams, MemoryProvider } from './mcp-client.ts';
import { approveAuthorization } from './oauth.ts';

/**
 * An MCP SDK Client connected to the tool server as an assistant would be: the first connect
 * meets the 401, discovers, registers (or presents its metadata document) and asks for consent;
 * the person approves (through the consent API, as the console does); the transport finishes
 * the authorization and the client connects again, now with tokens.
 */
export async function connectAssistant(options: {
  baseUrl: string;
  userToken: string;
  provider?: MemoryProvider;
}) {
  const provider = options.provider ?? new MemoryProvider();
  const url = new URL('/mcp', options.baseUrl);
  const client = new Client({ name: 'bps-test-assistant', version: '1.0.0' });
  const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
  await expect(client.connect(first)).rejects.toThrow(UnauthorizedError);

  const authorizationUrl = provider.authorizationUrls.at(-1) as URL;
  const { callback } = await approveAuthorization(authorizationUrl, options.userToken);
  await first.finishAuth(callbackParams(callback).code as string);

  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  await client.connect(transport);
  return { client, provider, authorizationUrl };
}
