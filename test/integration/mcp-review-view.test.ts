import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AssistantPrincipal } from '#lib/auth/principal.ts';
import { MCP_APP_MIME_TYPE, REVIEW_VIEW_URI } from '#lib/mcp/review-view.ts';
import { localUserId } from '../../infra/local/dev-issuer.ts';
import { modernPost, sendModern } from '../support/mcp-modern-client.ts';
import { sdkToolServer } from '../support/mcp-sdk-reference.ts';
import { connectAssistant } from '../support/mcp-session.ts';
import { baseUrl, obtainTokens } from '../support/oauth.ts';
import { arrangeTenant, type Tenant } from '../support/tenants.ts';

// The changeset review view (MCP Apps) as both eras of MCP client reach it through the harness:
// the resource, the tools that name it, and that nothing else changed for hosts without it.

const mcpUrl = () => `${baseUrl()}/mcp`;
const LEGACY_HEADERS = {
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  'mcp-protocol-version': '2025-11-25',
};

/** What a host needs to render the page: an HTML document whose every byte is inline. */
function expectSelfContainedPage(content: {
  uri: string;
  mimeType?: string;
  text?: unknown;
  _meta?: unknown;
}) {
  expect(content).toMatchObject({
    uri: REVIEW_VIEW_URI,
    mimeType: MCP_APP_MIME_TYPE,
    _meta: { ui: { csp: {}, prefersBorder: true } },
  });
  const html = content.text as string;
  expect(html.startsWith('<!doctype html>')).toBe(true);
  expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none';`);
  expect(html).toContain("connect-src 'none'");
  // One inline script and one inline style sheet; nothing that loads from anywhere.
  expect(html.match(/<script/g)).toHaveLength(1);
  expect(html).not.toMatch(/<script[^>]*\ssrc=|<link\b|<iframe\b|@import/i);
}

describe('the review view over MCP', () => {
  let tenant: Tenant;
  let client: Client;
  let token: string;

  beforeAll(async () => {
    tenant = await arrangeTenant();
    ({ client } = await connectAssistant({ baseUrl: baseUrl(), userToken: tenant.tokens.owner }));
    ({ access_token: token } = (await obtainTokens({ userToken: tenant.tokens.owner })).tokens as {
      access_token: string;
    });
  });

  it('is a resource a legacy client lists and reads, and propose_changes and get_changeset name it', async () => {
    expect(client.getServerCapabilities()?.resources).toEqual({ listChanged: true });
    const { resources } = await client.listResources();
    expect(resources).toEqual([
      expect.objectContaining({
        uri: REVIEW_VIEW_URI,
        name: 'changeset_review',
        mimeType: MCP_APP_MIME_TYPE,
      }),
    ]);
    const { contents } = await client.readResource({ uri: REVIEW_VIEW_URI });
    expect(contents).toHaveLength(1);
    expectSelfContainedPage(contents[0] as Parameters<typeof expectSelfContainedPage>[0]);

    const { tools } = await client.listTools();
    const linked = tools.filter((tool) => tool._meta?.ui !== undefined);
    expect(linked.map((tool) => [tool.name, tool._meta])).toEqual([
      ['propose_changes', { ui: { resourceUri: REVIEW_VIEW_URI } }],
      ['get_changeset', { ui: { resourceUri: REVIEW_VIEW_URI } }],
    ]);
    await expect(client.readResource({ uri: 'ui://business-platform/other' })).rejects.toThrow(/not found/);
  });

  it('is a resource a 2026-07-28 client lists (with cache hints) and reads, naming it in Mcp-Name', async () => {
    const send = (method: string, params: Record<string, unknown>, headers: Record<string, string> = {}) =>
      sendModern(mcpUrl(), token, modernPost(method, params, { headers }));

    const discovered = await send('server/discover', {});
    const listed = await send('resources/list', {});
    const read = await send('resources/read', { uri: REVIEW_VIEW_URI }, { 'mcp-name': REVIEW_VIEW_URI });
    const unnamed = await send('resources/read', { uri: REVIEW_VIEW_URI });
    const tools = await send('tools/list', {});

    expect(discovered.body.result.capabilities).toEqual({ tools: {}, resources: {} });
    expect(listed.status).toBe(200);
    expect(listed.body.result).toMatchObject({
      resultType: 'complete',
      ttlMs: 300_000,
      cacheScope: 'public',
      resources: [{ uri: REVIEW_VIEW_URI, mimeType: MCP_APP_MIME_TYPE }],
    });
    expect(read.status).toBe(200);
    expect(read.body.result.resultType).toBe('complete');
    expectSelfContainedPage(read.body.result.contents[0]);
    expect(unnamed.status).toBe(400);
    expect(unnamed.body.error.message).toMatch(/Mcp-Name header is required/);
    const proposeChanges = tools.body.result.tools.find(
      (tool: { name: string }) => tool.name === 'propose_changes',
    );
    expect(proposeChanges._meta).toEqual({ ui: { resourceUri: REVIEW_VIEW_URI } });
  });

  it('leaves what a host without the extension gets as it was: tools/call byte for byte, tools/list but for _meta', async () => {
    const session = (
      await client.callTool({ name: 'open_edit_session', arguments: { business_id: tenant.businessId } })
    ).structuredContent as { id: string; client_id: string };
    const proposed = (
      await client.callTool({
        name: 'propose_changes',
        arguments: {
          session_id: session.id,
          items: [{ entity: 'faq', action: 'create', fields: { question: 'Same bytes?', answer: 'Yes.' } }],
        },
      })
    ).structuredContent as { id: string };
    // The tool server as it was before the view (the MCP SDK's McpServer, no resource, no tool
    // _meta), run in this process against the same table, as the same assistant.
    const principal: AssistantPrincipal = {
      kind: 'assistant',
      userId: localUserId(tenant.emails.owner),
      clientId: session.client_id,
      scopes: ['edits:read', 'edits:write'],
      grantId: 'not-read-by-tools',
    };
    const asBefore = (body: unknown) =>
      sdkToolServer(principal, LEGACY_HEADERS, body, [], { withReviewView: false });
    const now = async (body: unknown) => {
      const response = await fetch(mcpUrl(), {
        method: 'POST',
        headers: { ...LEGACY_HEADERS, authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
      return response.text();
    };
    // `token` is another client of the same person, who may read the changeset as well.
    const getChangeset = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'get_changeset', arguments: { changeset_id: proposed.id } },
    };
    const listTools = { jsonrpc: '2.0', id: 8, method: 'tools/list', params: {} };

    const callNow = await now(getChangeset);
    expect(callNow).toContain('"structuredContent"');
    expect(callNow).toBe((await asBefore(getChangeset)).body);

    const listedNow = JSON.parse(await now(listTools));
    for (const tool of listedNow.result.tools) delete tool._meta;
    expect(listedNow).toEqual(JSON.parse((await asBefore(listTools)).body));
  });
});
