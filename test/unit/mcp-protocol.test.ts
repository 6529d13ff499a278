import {
  JSONRPCMessageSchema,
  LATEST_PROTOCOL_VERSION as SDK_LATEST,
  SUPPORTED_PROTOCOL_VERSIONS as SDK_SUPPORTED,
  ErrorCode as SdkErrorCode,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  classifyMessage,
  ErrorCode,
  isInitializeRequest,
  LATEST_PROTOCOL_VERSION,
  negotiateVersion,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '#lib/mcp/protocol.ts';

// lib/mcp/protocol.ts restates what the MCP SDK defines, so that the Lambda need not load the SDK:
// these tests hold it to the SDK, so that an SDK upgrade that changes them fails here.

describe('the MCP constants', () => {
  it('are the SDK’s protocol versions, latest first', () => {
    expect(LATEST_PROTOCOL_VERSION).toBe(SDK_LATEST);
    expect(SUPPORTED_PROTOCOL_VERSIONS).toEqual(SDK_SUPPORTED);
  });

  it('are the SDK’s JSON-RPC error codes', () => {
    expect(ErrorCode).toEqual({
      ParseError: SdkErrorCode.ParseError,
      InvalidRequest: SdkErrorCode.InvalidRequest,
      MethodNotFound: SdkErrorCode.MethodNotFound,
      InvalidParams: SdkErrorCode.InvalidParams,
      InternalError: SdkErrorCode.InternalError,
      ConnectionClosed: SdkErrorCode.ConnectionClosed,
    });
  });
});

describe('version negotiation', () => {
  it.each(SDK_SUPPORTED)('answers %s, a version we speak, with itself', (version) => {
    expect(negotiateVersion(version)).toBe(version);
  });

  it.each(['1999-01-01', '', '2025-11-25 '])('answers %j with the latest version', (version) => {
    expect(negotiateVersion(version)).toBe(SDK_LATEST);
  });
});

const messages: [string, unknown, 'request' | 'notification' | 'response' | undefined][] = [
  ['a request', { jsonrpc: '2.0', id: 1, method: 'ping' }, 'request'],
  [
    'a request with a string id and params',
    { jsonrpc: '2.0', id: 'a', method: 'x', params: { a: 1 } },
    'request',
  ],
  [
    'a request with a progress token',
    { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { progressToken: 't' } } },
    'request',
  ],
  ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }, 'notification'],
  ['a notification with params', { jsonrpc: '2.0', method: 'n', params: {} }, 'notification'],
  ['a result', { jsonrpc: '2.0', id: 1, result: {} }, 'response'],
  ['an error', { jsonrpc: '2.0', id: 1, error: { code: -1, message: 'm', data: [1] } }, 'response'],
  ['an error without id', { jsonrpc: '2.0', error: { code: -1, message: 'm' } }, 'response'],
  ['null', null, undefined],
  ['an array', [], undefined],
  ['a number', 1, undefined],
  ['no jsonrpc', { id: 1, method: 'ping' }, undefined],
  ['jsonrpc as a number', { jsonrpc: 2, id: 1, method: 'ping' }, undefined],
  ['a null id', { jsonrpc: '2.0', id: null, method: 'ping' }, undefined],
  ['a boolean id', { jsonrpc: '2.0', id: true, method: 'ping' }, undefined],
  ['a fractional id', { jsonrpc: '2.0', id: 0.5, method: 'ping' }, undefined],
  ['an id beyond safe integers', { jsonrpc: '2.0', id: 2 ** 60, method: 'ping' }, undefined],
  ['a method that is not a string', { jsonrpc: '2.0', id: 1, method: 1 }, undefined],
  ['params as an array', { jsonrpc: '2.0', id: 1, method: 'x', params: [1] }, undefined],
  ['params as null', { jsonrpc: '2.0', id: 1, method: 'x', params: null }, undefined],
  ['_meta as a string', { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: 'm' } }, undefined],
  [
    'a boolean progress token',
    { jsonrpc: '2.0', method: 'x', params: { _meta: { progressToken: true } } },
    undefined,
  ],
  ['a member of no kind', { jsonrpc: '2.0', id: 1, method: 'x', other: 1 }, undefined],
  ['a request and a result at once', { jsonrpc: '2.0', id: 1, method: 'x', result: {} }, undefined],
  ['a result without id', { jsonrpc: '2.0', result: {} }, undefined],
  ['a result that is an array', { jsonrpc: '2.0', id: 1, result: [] }, undefined],
  [
    'an error with a fractional code',
    { jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'm' } },
    undefined,
  ],
  [
    'an error and a result',
    { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'm' }, result: {} },
    undefined,
  ],
  ['nothing but jsonrpc', { jsonrpc: '2.0' }, undefined],
];

describe('classifyMessage', () => {
  it.each(messages)('sorts %s', (_name, message, kind) => {
    expect(classifyMessage(message)?.kind).toBe(kind);
  });

  it.each(messages)('accepts %s exactly when the SDK’s message schema does', (_name, message) => {
    expect(classifyMessage(message) !== undefined).toBe(JSONRPCMessageSchema.safeParse(message).success);
  });
});

describe('isInitializeRequest', () => {
  const initialize = (params: unknown) =>
    classifyMessage({ jsonrpc: '2.0', id: 1, method: 'initialize', params });
  const valid = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } };

  it('takes an initialize request with its version, capabilities and client', () => {
    expect(isInitializeRequest(initialize(valid) as never)).toBe(true);
  });

  it.each([
    ['no params', undefined],
    ['no protocol version', { ...valid, protocolVersion: undefined }],
    ['no capabilities', { ...valid, capabilities: undefined }],
    ['a client without a version', { ...valid, clientInfo: { name: 'c' } }],
  ])('refuses one with %s', (_name, params) => {
    expect(isInitializeRequest(initialize(params) as never)).toBe(false);
  });

  it('refuses an initialize notification', () => {
    const notification = classifyMessage({ jsonrpc: '2.0', method: 'initialize', params: valid });
    expect(isInitializeRequest(notification as never)).toBe(false);
  });
});
