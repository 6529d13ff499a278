import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

/**
 * The HTTP headers a modern request mirrors from its body (MCP 2026-07-28, "Streamable HTTP" →
 * "Request Metadata"), so that gateways can route on them without reading the body. Whoever
 * reads the body must hold them to it: a header that is missing, carries characters a header
 * value may not, or disagrees with the body is refused, so that nothing in front of us can have
 * acted on a different request from the one we run. Pure logic, no I/O.
 *
 * - MCP-Protocol-Version: on every request, equal to `_meta`'s protocol version.
 * - Mcp-Method: on every request, equal to `method`.
 * - Mcp-Name: on tools/call and prompts/get (`params.name`) and resources/read (`params.uri`).
 *
 * Mcp-Name may carry its value Base64-encoded as `=?base64?…?=` (for a value that is not plain
 * ASCII); it is decoded before the comparison. Our tools mark no parameter with `x-mcp-header`,
 * so no Mcp-Param-* header is ours to check: they pass unread, as unknown headers do.
 */
const NAME_SOURCES: Record<string, 'name' | 'uri'> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/** Visible ASCII, space and horizontal tab: what an HTTP field value may hold (RFC 9110 §5.5). */
const FIELD_VALUE = /^[\t\x20-\x7e]*$/;
const BASE64_SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

/** A header's value with the Base64 sentinel decoded; undefined when the encoding is broken. */
export function decodeHeaderValue(value: string): string | undefined {
  const encoded = BASE64_SENTINEL.exec(value);
  if (!encoded) return value;
  const text = Buffer.from(encoded[1] as string, 'base64').toString('utf8');
  // A byte sequence that is not UTF-8 decodes with U+FFFD and re-encodes to different Base64.
  return Buffer.from(text, 'utf8').toString('base64').replace(/=+$/, '') ===
    (encoded[1] as string).replace(/=+$/, '')
    ? text
    : undefined;
}

/**
 * Why the MCP-Protocol-Version header does not stand for the version the body's `_meta` names,
 * or undefined when it does. Checked before anything else of a modern request, since the version
 * decides the rest.
 */
export const protocolVersionHeaderProblem = (header: string | undefined, metaVersion: string) =>
  headerProblem('MCP-Protocol-Version', header, metaVersion, false);

/**
 * Why the Mcp-Method and Mcp-Name headers do not stand for the body, or undefined when they do.
 * `headers` have lower-case names (header names are case-insensitive; values compare exactly).
 */
export function requestHeadersProblem(
  headers: Record<string, string | undefined>,
  request: JSONRPCRequest,
): string | undefined {
  const methodProblem = headerProblem('Mcp-Method', headers['mcp-method'], request.method, false);
  const nameSource = NAME_SOURCES[request.method];
  if (methodProblem || !nameSource) return methodProblem;
  const bodyName = (request.params as Record<string, unknown> | undefined)?.[nameSource];
  return headerProblem('Mcp-Name', headers['mcp-name'], bodyName, true);
}

function headerProblem(name: string, value: string | undefined, bodyValue: unknown, encodable: boolean) {
  if (value === undefined) return `the ${name} header is required`;
  if (!FIELD_VALUE.test(value)) return `the ${name} header holds characters a header value may not`;
  const decoded = encodable ? decodeHeaderValue(value) : value;
  if (decoded === undefined) return `the ${name} header's Base64 value does not decode to UTF-8`;
  if (decoded === bodyValue) return undefined;
  const body = typeof bodyValue === 'string' ? `'${bodyValue}'` : (JSON.stringify(bodyValue) ?? 'absent');
  return `${name} header value '${value}' does not match body value ${body}`;
}
