import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { modernPost, sendModern } from '../support/mcp-modern-client.ts';
import { connectAssistant } from '../support/mcp-session.ts';
import { baseUrl, obtainTokens } from '../support/oauth.ts';
import { arrangeTenant, type Tenant } from '../support/tenants.ts';

// POST /mcp through the harness (API route, authorizer, pipeline, Lambda) as a client of MCP
// 2026-07-28 speaks it, beside the official SDK's legacy client on the same endpoint. The rules
// one by one are in test/unit/mcp-modern-transport.test.ts; here: that they hold over real HTTP
// (the headers reach the function) and that tools do real work for a modern client.

const mcpUrl = () => `${baseUrl()}/mcp`;

describe('a 2026-07-28 client of /mcp', () => {
  let tenant: Tenant;
  let token: string;
  const send = (post: ReturnType<typeof modernPost>) => sendModern(mcpUrl(), token, post);
  const call = async (name: string, args: Record<string, unknown>) => {
    const response = await send(modernPost('tools/call', { name, arguments: args }));
    expect(response.status, name).toBe(200);
    expect(response.body.result.resultType, name).toBe('complete');
    expect(response.body.result.isError, JSON.stringify(response.body.result.content)).toBeFalsy();
    return response.body.result.structuredContent;
  };

  beforeAll(async () => {
    tenant = await arrangeTenant();
    ({ access_token: token } = (await obtainTokens({ userToken: tenant.tokens.owner })).tokens as {
      access_token: string;
    });
  });

  it('discovers the server without initialize, then lists the tools with cache hints', async () => {
    const discovered = await send(modernPost('server/discover'));
    const listed = await send(modernPost('tools/list'));

    expect(discovered.status).toBe(200);
    expect(discovered.body.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: expect.arrayContaining(['2026-07-28', '2025-11-25', '2025-03-26']),
      capabilities: { tools: {} },
    });
    expect(listed.body.result).toMatchObject({
      resultType: 'complete',
      ttlMs: 300_000,
      cacheScope: 'public',
    });
    expect(listed.body.result.tools.map((tool: { name: string }) => tool.name)).toContain('propose_changes');
  });

  it('edits through tools: open a session, propose, apply, and read the record back', async () => {
    const { businesses } = await call('list_businesses', {});
    expect(businesses).toEqual([{ business_id: tenant.businessId, name: expect.any(String), role: 'owner' }]);
    const session = await call('open_edit_session', { business_id: tenant.businessId });
    const proposed = await call('propose_changes', {
      session_id: session.id,
      items: [{ entity: 'faq', action: 'create', fields: { question: 'Modern?', answer: 'Since July.' } }],
    });
    const outcome = await call('apply_changes', { changeset_id: proposed.id });
    const record = await call('read_record', {
      session_id: session.id,
      entity: 'faq',
      record_id: outcome.items[0].record_id,
    });
    expect(record.data.question).toBe('Modern?');
  });

  it('calls every listed tool, each answered as a complete result', async () => {
    const listed = await send(modernPost('tools/list'));
    const names: string[] = listed.body.result.tools.map((tool: { name: string }) => tool.name);
    const called = new Set<string>();
    const callAndNote = async (name: string, args: Record<string, unknown>) => {
      called.add(name);
      return call(name, args);
    };

    await callAndNote('list_businesses', {});
    const session = await callAndNote('open_edit_session', { business_id: tenant.businessId });
    const snapshot = await callAndNote('get_snapshot', { session_id: session.id });
    expect(snapshot.profile.version).toEqual(expect.any(Number));
    await callAndNote('read_record', { session_id: session.id, entity: 'profile', record_id: 'profile' });
    const items = [
      { entity: 'faq', action: 'create', fields: { question: 'Every tool?', answer: 'Every one.' } },
      { entity: 'profile', action: 'update', fields: { tagline: 'Called by a 2026-07-28 client' } },
    ];
    const kept = await callAndNote('propose_changes', { session_id: session.id, items });
    const dropped = await callAndNote('propose_changes', {
      session_id: session.id,
      items: items.slice(0, 1),
    });
    const unticked = await callAndNote('set_change_ticked', {
      changeset_id: kept.id,
      item_id: kept.items[1].id,
      ticked: false,
    });
    expect(unticked.items.map((item: { ticked: boolean }) => item.ticked)).toEqual([true, false]);
    expect((await callAndNote('get_changeset', { changeset_id: kept.id })).status).toBe('staged');
    expect((await callAndNote('discard_changes', { changeset_id: dropped.id })).status).toBe('discarded');
    const applied = await callAndNote('apply_changes', { changeset_id: kept.id });
    expect(applied.items.map((item: { status: string }) => item.status)).toEqual(['applied', 'skipped']);
    const log = await callAndNote('read_change_log', { business_id: tenant.businessId, limit: 5 });
    const created = log.entries.find(
      (entry: { record_id: string }) => entry.record_id === applied.items[0].record_id,
    );
    const undone = await callAndNote('undo_change', { business_id: tenant.businessId, entry_id: created.id });
    expect(undone.undo_of).toBe(created.id);
    // The undo took the FAQ away, so reverting the changeset now finds nothing to revert.
    const reverted = await callAndNote('revert_changes', { changeset_id: kept.id });
    expect(reverted.items[0].status).toBe('revert_conflict');

    expect([...called].sort()).toEqual([...names].sort());
  });

  it('is refused with 400 -32020 when a header disagrees with the body, over HTTP', async () => {
    const response = await send(
      modernPost(
        'tools/call',
        { name: 'list_businesses', arguments: {} },
        { headers: { 'mcp-name': 'apply_changes' } },
      ),
    );
    expect(response.status).toBe(400);
    expect(response.body.error).toEqual({
      code: -32020,
      message:
        "Header mismatch: Mcp-Name header value 'apply_changes' does not match body value 'list_businesses'",
    });
  });

  it('learns the versions served from a refusal of a version it asked for, and retries with one', async () => {
    const future = { 'io.modelcontextprotocol/protocolVersion': '2027-01-01' };
    const refused = await send(
      modernPost('tools/list', {}, { meta: future, headers: { 'mcp-protocol-version': '2027-01-01' } }),
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe(-32022);

    const [version] = refused.body.error.data.supported as string[];
    const retried = await send(
      modernPost(
        'tools/list',
        {},
        {
          meta: { 'io.modelcontextprotocol/protocolVersion': version },
          headers: { 'mcp-protocol-version': version },
        },
      ),
    );
    expect(retried.status).toBe(200);
  });

  it('gets 404 with -32601 for a method the server does not have (ping is gone in 2026-07-28)', async () => {
    const response = await send(modernPost('ping'));
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe(-32601);
  });

  it('meets the scope check as legacy clients do: a write tool with a read-only token is 403 insufficient_scope', async () => {
    const { tokens } = await obtainTokens({ userToken: tenant.tokens.owner, scope: 'edits:read' });
    const response = await sendModern(
      mcpUrl(),
      tokens.access_token,
      modernPost('tools/call', { name: 'open_edit_session', arguments: { business_id: tenant.businessId } }),
    );
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
  });
});

describe('both eras on one endpoint', () => {
  it('serves the official SDK client (legacy, initialize) and a modern client side by side', async () => {
    const tenant = await arrangeTenant();
    const { client, provider } = await connectAssistant({
      baseUrl: baseUrl(),
      userToken: tenant.tokens.owner,
    });

    const legacy = (await client.callTool({ name: 'list_businesses', arguments: {} })) as CallToolResult;
    const modern = await sendModern(
      mcpUrl(),
      provider.current.access_token,
      modernPost('tools/call', { name: 'list_businesses', arguments: {} }),
    );

    expect(client.getServerVersion()).toEqual({ name: 'business-platform', version: '1.0.0' });
    expect(legacy).not.toHaveProperty('resultType');
    expect(modern.body.result.resultType).toBe('complete');
    expect(modern.body.result.structuredContent).toEqual(legacy.structuredContent);
  });
});

describe('batches over HTTP', () => {
  const legacyBatch = (token: string, version: string, body: unknown) =>
    fetch(mcpUrl(), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': version,
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify(body),
    });
  const calls = (count: number) =>
    Array.from({ length: count }, (_, index) => ({
      jsonrpc: '2.0',
      id: index + 1,
      method: 'tools/call',
      params: { name: 'list_businesses', arguments: {} },
    }));

  it('answers a 2025-03-26 batch of tool calls, every answer in its request’s place', async () => {
    const tenant = await arrangeTenant();
    const { tokens } = await obtainTokens({ userToken: tenant.tokens.owner });

    const response = await legacyBatch(tokens.access_token, '2025-03-26', calls(9));
    const answers = (await response.json()) as { id: number; result: CallToolResult }[];

    expect(response.status).toBe(200);
    expect(answers.map((answer) => answer.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const answer of answers) {
      expect(answer.result.structuredContent).toEqual({
        businesses: [{ business_id: tenant.businessId, name: expect.any(String), role: 'owner' }],
      });
    }
  });

  it('challenges once for every scope a batch’s calls need, so one new authorization is enough', async () => {
    const tenant = await arrangeTenant();
    const { tokens } = await obtainTokens({ userToken: tenant.tokens.owner, scope: 'edits:read' });
    const batch = [
      {
        ...calls(1)[0],
        params: { name: 'open_edit_session', arguments: { business_id: tenant.businessId } },
      },
      ...calls(1).map((call) => ({ ...call, id: 2 })),
    ];

    const response = await legacyBatch(tokens.access_token, '2025-03-26', batch);

    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${baseUrl()}/.well-known/oauth-protected-resource/mcp", error="insufficient_scope", scope="edits:write edits:read"`,
    );
  });

  it('refuses a batch of a later legacy revision with 400 -32600', async () => {
    const tenant = await arrangeTenant();
    const { tokens } = await obtainTokens({ userToken: tenant.tokens.owner });

    const response = await legacyBatch(tokens.access_token, '2025-06-18', calls(2));

    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32600);
  });
});
