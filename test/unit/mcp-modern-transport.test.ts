import { beforeAll, describe, expect, it, vi } from 'vitest';
import { handleMcpRequest } from '#lib/mcp/tool-server.ts';
import { mcpRoutes } from '#lib/routes/mcp.ts';
import { testAssistant } from '../support/assistant-principal.ts';
import { useBundleFilesTaskRoot } from '../support/bundle-files-task-root.ts';
import { MODERN_CLIENT_INFO, type ModernPost, modernPost } from '../support/mcp-modern-client.ts';

// The tools' modules read the table name at load (their DynamoDB client); nothing here calls it.
vi.hoisted(() => {
  process.env.TABLE_NAME ??= 'unit-test-table';
});

// POST /mcp as a client of MCP 2026-07-28 sees it, one test per rule of that revision's changelog
// and Streamable HTTP page that a stateless, tools-only server with JSON answers must keep. Only
// requests that reach no database are sent here; test/integration/mcp-modern.test.ts runs tools
// through the harness.

const principal = testAssistant;
const SERVED = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

async function send(post: ModernPost | { headers: ModernPost['headers']; body: unknown }) {
  const response = await handleMcpRequest(principal, post.headers, post.body);
  return { ...response, json: response.body ? JSON.parse(response.body) : undefined };
}

useBundleFilesTaskRoot(mcpRoutes.handleMcp.handler);

beforeAll(() => {
  vi.stubEnv('OAUTH_ISSUER', 'https://api.example.com');
});

describe('server/discover', () => {
  it('names the versions served (both eras, newest first), the tools and resources capabilities, the server and how to use it', async () => {
    const { statusCode, json } = await send(modernPost('server/discover', {}, { id: 'd-1' }));

    expect(statusCode).toBe(200);
    expect(json).toEqual({
      jsonrpc: '2.0',
      id: 'd-1',
      result: {
        resultType: 'complete',
        supportedVersions: SERVED,
        capabilities: { tools: {}, resources: {} },
        instructions: expect.stringContaining('propose_changes'),
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'business-platform', version: '1.0.0' } },
        ttlMs: 300_000,
        cacheScope: 'public',
      },
    });
  });
});

describe('results', () => {
  it('lists the tools as complete, cacheable for every caller, in the same order each time', async () => {
    const first = (await send(modernPost('tools/list'))).json.result;
    const second = (await send(modernPost('tools/list', {}, { id: 2 }))).json.result;

    expect(first).toMatchObject({
      resultType: 'complete',
      ttlMs: 300_000,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'business-platform' } },
    });
    expect(first.tools.map((tool: { name: string }) => tool.name)).toEqual(
      second.tools.map((tool: { name: string }) => tool.name),
    );
    expect(first.tools).toHaveLength(12);
  });

  it('publishes each tool in JSON Schema 2020-12 with an object at the top, without the legacy execution field', async () => {
    const { tools } = (await send(modernPost('tools/list'))).json.result;

    for (const tool of tools) {
      expect(tool.inputSchema, tool.name).toMatchObject({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
      });
      expect(tool.outputSchema?.$schema, tool.name).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(tool, tool.name).not.toHaveProperty('execution');
    }
  });

  it('marks a tool result complete and names the server, an isError result too', async () => {
    const { statusCode, json } = await send(
      modernPost('tools/call', { name: 'get_changeset', arguments: {} }),
    );

    expect(statusCode).toBe(200);
    expect(json.result).toMatchObject({
      resultType: 'complete',
      isError: true,
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'business-platform' } },
    });
    expect(json.result).not.toHaveProperty('ttlMs');
  });

  it('answers a call of an unknown tool with -32602 and no result', async () => {
    const { statusCode, json } = await send(modernPost('tools/call', { name: 'drop_tables' }));
    expect(statusCode).toBe(200);
    expect(json.error.code).toBe(-32602);
  });
});

describe('the per-request protocol fields in _meta', () => {
  it('serves a request without clientInfo, which is optional', async () => {
    const post = modernPost('tools/list', {}, { meta: { 'io.modelcontextprotocol/clientInfo': undefined } });
    expect((await send(post)).statusCode).toBe(200);
  });

  it.each([
    ['no protocol version', { 'io.modelcontextprotocol/protocolVersion': undefined }, /protocolVersion/],
    [
      'a protocol version that is a number',
      { 'io.modelcontextprotocol/protocolVersion': 2026 },
      /protocolVersion/,
    ],
    [
      'no client capabilities',
      { 'io.modelcontextprotocol/clientCapabilities': undefined },
      /clientCapabilities/,
    ],
    [
      'capabilities that are not an object',
      { 'io.modelcontextprotocol/clientCapabilities': [] },
      /clientCapabilities/,
    ],
    [
      'a client without a version',
      { 'io.modelcontextprotocol/clientInfo': { name: 'c' } },
      /clientInfo\.version/,
    ],
  ])('refuses %s with 400 -32602 Invalid params', async (_name, meta, where) => {
    const post = modernPost('tools/list', {}, { meta, id: 5 });
    // A protocol version absent from the body leaves the header nothing to mirror.
    const { statusCode, json } = await send(post);

    expect(statusCode).toBe(400);
    expect(json).toEqual({
      jsonrpc: '2.0',
      id: 5,
      error: { code: -32602, message: expect.stringMatching(where) },
    });
  });

  it('refuses a request with no _meta at all, when the header says 2026-07-28', async () => {
    const post = modernPost('tools/list');
    const { statusCode, json } = await send({ headers: post.headers, body: { ...post.body, params: {} } });
    expect(statusCode).toBe(400);
    expect(json.error.code).toBe(-32602);
  });
});

describe('protocol versions', () => {
  it.each(['2027-01-01', '1999-01-01'])(
    'answers a request in %s, a version we do not serve, with 400 -32022 and the versions we do',
    async (version) => {
      const post = modernPost(
        'tools/list',
        {},
        {
          meta: { 'io.modelcontextprotocol/protocolVersion': version },
          headers: { 'mcp-protocol-version': version },
          id: 'v',
        },
      );

      const { statusCode, json } = await send(post);

      expect(statusCode).toBe(400);
      expect(json).toEqual({
        jsonrpc: '2.0',
        id: 'v',
        error: {
          code: -32022,
          message: 'Unsupported protocol version',
          data: { supported: SERVED, requested: version },
        },
      });
    },
  );

  it('answers the version error before judging the rest of an unknown version’s _meta', async () => {
    const post = modernPost(
      'tools/list',
      {},
      {
        meta: {
          'io.modelcontextprotocol/protocolVersion': '2027-01-01',
          'io.modelcontextprotocol/clientCapabilities': undefined,
        },
        headers: { 'mcp-protocol-version': '2027-01-01' },
      },
    );
    expect((await send(post)).json.error.code).toBe(-32022);
  });
});

describe('the request metadata headers', () => {
  const mismatch = async (post: ModernPost, message: RegExp) => {
    const { statusCode, json } = await send(post);
    expect(statusCode).toBe(400);
    expect(json).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32020, message: expect.stringMatching(message) },
    });
  };

  it('refuses a request without MCP-Protocol-Version', async () => {
    await mismatch(
      modernPost('tools/list', {}, { headers: { 'mcp-protocol-version': undefined } }),
      /^Header mismatch: the MCP-Protocol-Version header is required$/,
    );
  });

  it('refuses an MCP-Protocol-Version that differs from the body’s version', async () => {
    await mismatch(
      modernPost('tools/list', {}, { headers: { 'mcp-protocol-version': '2025-11-25' } }),
      /MCP-Protocol-Version header value '2025-11-25' does not match body value '2026-07-28'/,
    );
  });

  it('refuses a request without Mcp-Method, and one whose Mcp-Method is not the body’s method', async () => {
    await mismatch(
      modernPost('tools/list', {}, { headers: { 'mcp-method': undefined } }),
      /Mcp-Method header is required/,
    );
    await mismatch(
      modernPost('tools/call', { name: 'list_businesses' }, { headers: { 'mcp-method': 'tools/list' } }),
      /Mcp-Method header value 'tools\/list' does not match body value 'tools\/call'/,
    );
  });

  it('compares method names exactly: the header’s value is case-sensitive', async () => {
    await mismatch(modernPost('tools/list', {}, { headers: { 'mcp-method': 'Tools/List' } }), /Mcp-Method/);
  });

  it('refuses a tools/call without Mcp-Name, and one that names another tool than the body', async () => {
    await mismatch(
      modernPost('tools/call', { name: 'list_businesses' }, { headers: { 'mcp-name': undefined } }),
      /Mcp-Name header is required/,
    );
    await mismatch(
      modernPost(
        'tools/call',
        { name: 'apply_changes', arguments: {} },
        { headers: { 'mcp-name': 'list_businesses' } },
      ),
      /Mcp-Name header value 'list_businesses' does not match body value 'apply_changes'/,
    );
  });

  it('decodes a Base64 Mcp-Name before comparing it', async () => {
    const encoded = `=?base64?${Buffer.from('get_changeset').toString('base64')}?=`;
    const post = modernPost(
      'tools/call',
      { name: 'get_changeset', arguments: {} },
      { headers: { 'mcp-name': encoded } },
    );
    const { statusCode, json } = await send(post);
    expect(statusCode).toBe(200);
    expect(json.result.isError).toBe(true);
  });

  it('refuses a header value with a control character', async () => {
    await mismatch(
      modernPost(
        'tools/call',
        { name: 'list_businesses' },
        { headers: { 'mcp-name': 'list_businesses\u0001' } },
      ),
      /Mcp-Name header holds characters a header value may not/,
    );
  });

  it('ignores an Mcp-Session-Id: no sessions in this revision, none minted or echoed', async () => {
    const response = await send(modernPost('tools/list', {}, { headers: { 'mcp-session-id': 'abc' } }));
    expect(response.statusCode).toBe(200);
    expect(response.headers).toEqual({ 'content-type': 'application/json' });
  });
});

describe('methods', () => {
  it.each([
    ['an unknown method', 'tools/destroy'],
    ['ping, which 2026-07-28 removed', 'ping'],
    ['logging/setLevel, which 2026-07-28 removed', 'logging/setLevel'],
    ['prompts/list (no prompts here)', 'prompts/list'],
  ])('answers %s with 404 and -32601 Method not found', async (_name, method) => {
    const { statusCode, json } = await send(modernPost(method, {}, { id: 3 }));
    expect(statusCode).toBe(404);
    expect(json).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found' } });
  });
});

describe('one message per POST', () => {
  it('refuses a batch with 400 -32600', async () => {
    const post = modernPost('tools/list');
    const { statusCode, json } = await send({
      headers: post.headers,
      body: [post.body, { ...post.body, id: 2 }],
    });
    expect(statusCode).toBe(400);
    expect(json).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringContaining('one JSON-RPC message per POST') },
    });
  });

  it('refuses a JSON-RPC response from the client with 400', async () => {
    const { headers } = modernPost('tools/list');
    const { statusCode, json } = await send({ headers, body: { jsonrpc: '2.0', id: 1, result: {} } });
    expect(statusCode).toBe(400);
    expect(json.error.code).toBe(-32600);
  });

  it('takes a notification with 202 and no body', async () => {
    const { headers } = modernPost('tools/list');
    const response = await send({
      headers,
      body: { jsonrpc: '2.0', method: 'notifications/cancelled', params: {} },
    });
    expect(response).toMatchObject({ statusCode: 202, body: '' });
  });
});

describe('one endpoint, both eras', () => {
  it('answers initialize as a legacy server, even when the header names 2026-07-28', async () => {
    const { headers } = modernPost('initialize');
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: MODERN_CLIENT_INFO },
    };
    const { statusCode, json } = await send({ headers, body });
    expect(statusCode).toBe(200);
    expect(json.result).toMatchObject({
      protocolVersion: '2025-11-25',
      capabilities: { tools: { listChanged: true } },
    });
    expect(json.result).not.toHaveProperty('resultType');
  });

  it('answers a legacy tools/list without resultType or cache hints, with execution', async () => {
    const headers = {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': '2025-11-25',
    };
    const { json } = await send({ headers, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(Object.keys(json.result)).toEqual(['tools']);
    expect(json.result.tools[0].execution).toEqual({ taskSupport: 'forbidden' });
    // JSON Schema 2020-12 in every era: MCP's dialect for tool schemas since 2025-11-25.
    expect(json.result.tools[0].inputSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  });

  it('still refuses a page of another origin with 403, in the modern era too', async () => {
    const post = modernPost('tools/list', {}, { headers: { origin: 'https://evil.example' } });
    expect((await send(post)).statusCode).toBe(403);
  });
});
