import type { JSONRPCErrorResponse, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { SERVED_PROTOCOL_VERSIONS } from '#lib/mcp/era.ts';

/**
 * The error codes MCP 2026-07-28 defines in the range it reserves for itself (-32020 to -32099;
 * "Base Protocol" → "Error Codes"), and the error responses built from them. Legacy revisions
 * never see these codes.
 */
export const ModernErrorCode = {
  /** The request's MCP headers are missing, malformed or disagree with its body. */
  HeaderMismatch: -32020,
  /** The request needs a client capability its `_meta` does not declare (none of ours does). */
  MissingRequiredClientCapability: -32021,
  /** The request names a protocol version we do not serve; `data` lists the ones we do. */
  UnsupportedProtocolVersion: -32022,
} as const;

export const headerMismatch = (id: RequestId, message: string): JSONRPCErrorResponse => ({
  jsonrpc: '2.0',
  id,
  error: { code: ModernErrorCode.HeaderMismatch, message: `Header mismatch: ${message}` },
});

export const unsupportedProtocolVersion = (id: RequestId, requested: string): JSONRPCErrorResponse => ({
  jsonrpc: '2.0',
  id,
  error: {
    code: ModernErrorCode.UnsupportedProtocolVersion,
    message: 'Unsupported protocol version',
    data: { supported: [...SERVED_PROTOCOL_VERSIONS], requested },
  },
});
