import { SUPPORTED_PROTOCOL_VERSIONS } from '#lib/mcp/protocol.ts';

/**
 * Which era of MCP a POST speaks (MCP specification 2026-07-28, "Versioning and Compatibility").
 * Legacy revisions (2025-11-25 and earlier) open with `initialize` and name their version in the
 * MCP-Protocol-Version header only; modern ones (2026-07-28 on) have no handshake and carry the
 * version, the client and its capabilities in every request's `_meta`. /mcp serves both eras on
 * the one endpoint, choosing per POST. Pure logic, no I/O.
 */
export type Era = 'legacy' | 'modern';

/** The modern revisions we serve, newest first. */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28'];

/** Every revision /mcp serves, newest first: the list a refused version is answered with. */
export const SERVED_PROTOCOL_VERSIONS: readonly string[] = [
  ...MODERN_PROTOCOL_VERSIONS,
  ...SUPPORTED_PROTOCOL_VERSIONS,
];

/** The `_meta` keys of a modern request. */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The protocol version a message names in its `_meta`, when it names one (of any type). */
export function metaProtocolVersion(message: unknown): unknown {
  if (!isObject(message) || !isObject(message.params) || !isObject(message.params._meta)) return undefined;
  return message.params._meta[META_PROTOCOL_VERSION];
}

/**
 * A message is modern when it names a modern version in the header, or names in its `_meta` any
 * version that is not a legacy one we speak (a version unknown to us, or of a later era, is then
 * answered the modern way, with the list of the versions we serve). `initialize` always opens a
 * legacy conversation, and a legacy client that happens to send a legacy version in `_meta` is
 * still legacy. A batch is modern when one of its messages is (and is then refused as a batch).
 */
export function detectEra(headerVersion: string | undefined, body: unknown): Era {
  const messages = Array.isArray(body) ? body : [body];
  if (!Array.isArray(body) && isObject(body) && body.method === 'initialize') return 'legacy';
  if (headerVersion !== undefined && MODERN_PROTOCOL_VERSIONS.includes(headerVersion)) return 'modern';
  const modernMeta = messages.some((message) => {
    const version = metaProtocolVersion(message);
    return (
      version !== undefined && !(typeof version === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(version))
    );
  });
  return modernMeta ? 'modern' : 'legacy';
}
