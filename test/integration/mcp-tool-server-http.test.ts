import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, inject, it } from 'vitest';
import { scriptDocument } from '../support/document-host.ts';
import { CLIENT_NAME, MemoryProvider, REDIRECT_URL } from '../support/mcp-client.ts';
import { connectAssistant } from '../support/mcp-session.ts';
import { baseUrl, obtainTokens } from '../support/oauth.ts';
import { arrangeTenant } from '../support/tenants.ts';

/** The tool server as a legacy client meets it over HTTP: connecting, 401, 403, 405, protocol errors. */
const mcpUrl = () => `${baseUrl()}/mcp`;

/** A raw JSON-RPC POST to /mcp, as the transport sends it. */
async function postMcp(token: string | undefined, message: object, headers: Record<string, string> = {}) {
  const response = await fetch(mcpUrl(), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: JSON.stringify(message),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

const callMessage = (name: string, args: object = {}) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('connecting with a Client ID Metadata Document', () => {
  it('connects without registering: the client_id is the document URL, and tools work', async () => {
    const tenant = await arrangeTenant();
    const path = `/clients/${randomUUID()}.json`;
    const clientMetadataUrl = `${inject('documentHostHttps')}${path}`;
    await scriptDocument(inject('documentHost'), path, {
      status: 200,
      body: JSON.stringify({
        client_id: clientMetadataUrl,
        client_name: CLIENT_NAME,
        redirect_uris: [REDIRECT_URL],
      }),
    });

    const { client, authorizationUrl } = await connectAssistant({
      baseUrl: baseUrl(),
      userToken: tenant.tokens.owner,
      provider: new MemoryProvider({ clientMetadataUrl }),
    });
    const result = (await client.callTool({ name: 'list_businesses', arguments: {} })) as CallToolResult;

    expect(authorizationUrl.searchParams.get('client_id')).toBe(clientMetadataUrl);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      businesses: [{ business_id: tenant.businessId, name: expect.any(String), role: 'owner' }],
    });
  });
});

describe('the tool server over HTTP', () => {
  it('answers 401 with the resource metadata and scopes, to no token and to a token for the edits API', async () => {
    const tenant = await arrangeTenant();
    const forEdits = await obtainTokens({
      userToken: tenant.tokens.owner,
      resource: `${baseUrl()}/api/v1/edits`,
    });

    for (const token of [undefined, forEdits.tokens.access_token, tenant.tokens.owner]) {
      const response = await postMcp(token, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${baseUrl()}/.well-known/oauth-protected-resource/mcp", scope="edits:read edits:write"${token ? ', error="invalid_token"' : ''}`,
      );
    }
  });

  it('lets a read-only token call read tools, and refuses write tools with 403 insufficient_scope', async () => {
    const tenant = await arrangeTenant();
    const { tokens } = await obtainTokens({ userToken: tenant.tokens.owner, scope: 'edits:read' });

    const readCall = await postMcp(tokens.access_token, callMessage('list_businesses'));
    const writeCall = await postMcp(
      tokens.access_token,
      callMessage('open_edit_session', { business_id: tenant.businessId }),
    );

    expect(readCall.status).toBe(200);
    expect(readCall.body.result.structuredContent.businesses).toHaveLength(1);
    expect(writeCall.status).toBe(403);
    expect(writeCall.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${baseUrl()}/.well-known/oauth-protected-resource/mcp", error="insufficient_scope", scope="edits:write"`,
    );
  });

  it('answers a call of an unknown tool with a JSON-RPC error -32602 (a protocol error in MCP)', async () => {
    const tenant = await arrangeTenant();
    const { tokens } = await obtainTokens({ userToken: tenant.tokens.owner });

    const response = await postMcp(tokens.access_token, { ...callMessage('drop_tables'), id: 7 });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32602, message: expect.stringContaining('drop_tables') },
    });
  });

  it('refuses GET and DELETE with 405, and a page of another origin with 403', async () => {
    const tenant = await arrangeTenant();
    const { tokens } = await obtainTokens({ userToken: tenant.tokens.owner });

    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(mcpUrl(), {
        method,
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow')).toBe('POST, OPTIONS');
    }
    const foreign = await postMcp(tokens.access_token, callMessage('list_businesses'), {
      origin: 'https://evil.example',
    });
    const inspector = await postMcp(tokens.access_token, callMessage('list_businesses'), {
      origin: 'http://localhost:6274',
    });
    expect(foreign.status).toBe(403);
    expect(inspector.status).toBe(200);
  });
});
