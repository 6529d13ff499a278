import { beforeAll, describe, expect, it, vi } from 'vitest';
import { REVIEW_VIEW_URI } from '#lib/mcp/review-view.ts';
import { handleMcpRequest } from '#lib/mcp/tool-server.ts';
import { mcpRoutes } from '#lib/routes/mcp.ts';
import { testAssistant } from '../support/assistant-principal.ts';
import { useBundleFilesTaskRoot } from '../support/bundle-files-task-root.ts';
import { sdkToolServer } from '../support/mcp-sdk-reference.ts';

// The tools' modules read the table name at load (their DynamoDB client); nothing here calls it.
vi.hoisted(() => {
  process.env.TABLE_NAME ??= 'unit-test-table';
});

// Our tool server against the MCP SDK's McpServer + WebStandardStreamableHTTPServerTransport,
// which served POST /mcp before (test/support/mcp-sdk-reference.ts): the same POST must get the
// same status, headers and body, byte for byte. Only requests that reach no database are sent here;
// tools that run are covered end to end by test/integration/mcp-tool-server.test.ts.

const ISSUER = 'https://api.example.com';
const INSPECTOR = 'http://localhost:6274';
const principal = testAssistant;
const HEADERS = {
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  'mcp-protocol-version': '2025-11-25',
};

const BATCH_HEADERS = { ...HEADERS, 'mcp-protocol-version': '2025-03-26' };

const ours = (body: unknown, headers: Record<string, string | undefined> = HEADERS) =>
  handleMcpRequest(principal, headers, body);
const sdk = (body: unknown, headers: Record<string, string | undefined> = HEADERS) =>
  sdkToolServer(principal, headers, body, [INSPECTOR, ISSUER]);

const request = (method: string, params?: object, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params ? { params } : {}),
});
const initialize = (protocolVersion: string) =>
  request('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'test', version: '1' } });
const call = (name: string, args?: unknown) =>
  request('tools/call', args === undefined ? { name } : { name, arguments: args });

useBundleFilesTaskRoot(mcpRoutes.handleMcp.handler);

beforeAll(() => {
  vi.stubEnv('OAUTH_ISSUER', ISSUER);
  vi.stubEnv('MCP_ALLOWED_ORIGINS', INSPECTOR);
});

describe('the tool server answers as the MCP SDK did', () => {
  it.each([
    ['initialize, a version we speak', initialize('2025-06-18')],
    ['initialize, the latest version', initialize('2025-11-25')],
    ['initialize, a version we do not know', initialize('1999-01-01')],
    ['ping', request('ping')],
    ['ping with a string id and _meta', request('ping', { _meta: { progressToken: 'p' } }, 'abc')],
    ['tools/list', request('tools/list', {})],
    ['tools/list with a cursor', request('tools/list', { cursor: 'x' })],
    ['an unknown method', request('prompts/list')],
    ['logging/setLevel (no logging capability)', request('logging/setLevel', { level: 'info' })],
    ['notifications/initialized', { jsonrpc: '2.0', method: 'notifications/initialized' }],
    ['an unknown notification', { jsonrpc: '2.0', method: 'notifications/whatever', params: { a: 1 } }],
    ['a response from the client', { jsonrpc: '2.0', id: 9, result: {} }],
    ['an error response from the client', { jsonrpc: '2.0', id: 9, error: { code: 1, message: 'no' } }],
    ['no body', undefined],
    ['null', null],
    ['a string', 'ping'],
    ['no jsonrpc member', { id: 1, method: 'ping' }],
    ['jsonrpc 1.0', { jsonrpc: '1.0', id: 1, method: 'ping' }],
    ['a member JSON-RPC does not define', { ...request('ping'), extra: true }],
    ['a null id', { jsonrpc: '2.0', id: null, method: 'ping' }],
    ['a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'ping' }],
    ['params as an array', { jsonrpc: '2.0', id: 1, method: 'ping', params: [] }],
    ['a fractional progress token', request('ping', { _meta: { progressToken: 1.5 } })],
    [
      'a related task without taskId',
      request('ping', { _meta: { 'io.modelcontextprotocol/related-task': {} } }),
    ],
    ['a result that is not an object', { jsonrpc: '2.0', id: 1, result: 5 }],
    ['an error without a message', { jsonrpc: '2.0', id: 1, error: { code: 1 } }],
    ['arguments a tool refuses (missing)', call('get_changeset', {})],
    ['arguments a tool refuses (malformed id)', call('get_changeset', { changeset_id: 'nope' })],
    ['arguments a tool refuses (unknown field)', call('open_edit_session', { business_id: 'x', x: 1 })],
    [
      'arguments a tool refuses (nested)',
      call('propose_changes', { session_id: 'x', items: [{ entity: 'faq' }] }),
    ],
    ['no arguments to a tool that needs some', call('read_record')],
    ['resources/list', request('resources/list', {})],
    ['resources/templates/list', request('resources/templates/list', {})],
    ['resources/read of the review view', request('resources/read', { uri: REVIEW_VIEW_URI })],
    ['resources/read of another ui:// URI', request('resources/read', { uri: 'ui://business-platform/x' })],
    ['resources/subscribe (no subscriptions)', request('resources/subscribe', { uri: REVIEW_VIEW_URI })],
  ])('%s', async (_name, body) => {
    expect(await ours(body)).toEqual(await sdk(body));
  });

  // Batches exist in protocol version 2025-03-26 only; later ones are refused (below).
  it.each([
    ['a batch of two requests', [request('ping', undefined, 1), request('tools/list', undefined, 2)]],
    [
      'a batch of a request and a notification',
      [request('ping'), { jsonrpc: '2.0', method: 'notifications/initialized' }],
    ],
    ['a batch of one request', [request('tools/list', undefined, 3)]],
    ['an empty batch', []],
    ['a batch over 100 messages', Array.from({ length: 101 }, (_, i) => request('ping', undefined, i))],
    ['initialize in a batch', [initialize('2025-03-26'), request('ping', undefined, 2)]],
    ['a batch with one invalid message', [request('ping'), { jsonrpc: '2.0' }]],
  ])('%s, in protocol version 2025-03-26', async (_name, body) => {
    expect(await ours(body, BATCH_HEADERS)).toEqual(await sdk(body, BATCH_HEADERS));
  });

  it.each([
    ['no Accept', { ...HEADERS, accept: undefined }],
    ['an Accept without text/event-stream', { ...HEADERS, accept: 'application/json' }],
    ['an Accept without application/json', { ...HEADERS, accept: 'text/event-stream' }],
    ['no Content-Type', { ...HEADERS, 'content-type': undefined }],
    ['a Content-Type other than JSON', { ...HEADERS, 'content-type': 'text/plain' }],
    ['a JSON Content-Type with a charset', { ...HEADERS, 'content-type': 'application/json; charset=utf-8' }],
    ['a protocol version we do not speak', { ...HEADERS, 'mcp-protocol-version': '1999-01-01' }],
    ['no protocol version', { ...HEADERS, 'mcp-protocol-version': undefined }],
    ['a page of another origin', { ...HEADERS, origin: 'https://evil.example' }],
    ['a page of an allowed origin', { ...HEADERS, origin: INSPECTOR }],
    ['a page of our own origin', { ...HEADERS, origin: ISSUER }],
  ])('%s', async (_name, headers) => {
    expect(await ours(request('ping'), headers)).toEqual(await sdk(request('ping'), headers));
  });

  it('lets initialize name an unknown protocol version in the header, as the SDK does', async () => {
    const headers = { ...HEADERS, 'mcp-protocol-version': '1999-01-01' };
    expect(await ours(initialize('2025-11-25'), headers)).toEqual(
      await sdk(initialize('2025-11-25'), headers),
    );
  });

  it('refuses a bad Origin before anything else, as the SDK does', async () => {
    const headers = { origin: 'https://evil.example' };
    expect(await ours(undefined, headers)).toEqual(await sdk(undefined, headers));
  });
});

describe('where the tool server answers differently from the bare SDK, on purpose', () => {
  const rpcError = async (body: unknown) => JSON.parse((await ours(body)).body).error;

  it('answers a call of an unknown tool with -32602, alone or in a batch (MCP: a protocol error)', async () => {
    expect(await rpcError(call('drop_tables', {}))).toEqual({
      code: -32602,
      message: 'Unknown tool: drop_tables. tools/list names the tools there are.',
    });
    const batch = JSON.parse(
      (await ours([call('drop_tables', {}), request('ping', undefined, 2)], BATCH_HEADERS)).body,
    );
    expect(batch[0].error.code).toBe(-32602);
    expect(batch[1]).toEqual({ result: {}, jsonrpc: '2.0', id: 2 });
  });

  it.each(['2024-11-05', '2025-06-18', '2025-11-25'])(
    'refuses a batch in protocol version %s, whose transport takes one message per POST',
    async (version) => {
      const headers = { ...HEADERS, 'mcp-protocol-version': version };
      const batch = [request('ping', undefined, 1), request('tools/list', undefined, 2)];

      const response = await ours(batch, headers);

      expect(response.statusCode).toBe(400);
      expect(JSON.parse(response.body)).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: `Invalid Request: JSON-RPC batches belong to protocol version 2025-03-26 only; protocol version ${version} takes one message per POST`,
        },
      });
      // The SDK took it: the refusal is ours, not a copy of its answer.
      expect((await sdk(batch, headers)).statusCode).toBe(200);
    },
  );

  it('takes a batch without a version header as one of 2025-03-26, which the transport allows', async () => {
    const headers = { ...HEADERS, 'mcp-protocol-version': undefined };
    const response = await ours([request('ping', undefined, 1), request('ping', undefined, 2)], headers);
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toHaveLength(2);
  });

  it.each([
    ['initialize without its params', request('initialize', {})],
    ['tools/call without a tool name', request('tools/call', {})],
    ['tools/call with arguments that are not an object', call('list_businesses', [1])],
    ['tools/list with a cursor that is not a string', request('tools/list', { cursor: 5 })],
  ])(
    'answers %s with -32602 Invalid params (the SDK answered -32603 with zod’s issue list)',
    async (_name, body) => {
      expect(await rpcError(body)).toEqual({
        code: -32602,
        message: expect.stringMatching(/^Invalid params: /),
      });
    },
  );
});
