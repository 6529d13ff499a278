import type { RouteDefinition } from '#lib/http/route.ts';

/**
 * Browser access, read by CDK (the HTTP APIs' CORS configuration) and by the local harness (which
 * answers preflights the way API Gateway does), so both behave alike.
 *
 * An HTTP API with a CORS configuration answers every preflight itself and drops the CORS headers
 * its integrations return, so one API cannot serve both the console's origin list and the
 * any-origin answers of the OAuth endpoints. Hence two APIs:
 * - 'console': every console, agent and internal route, with the CORS configuration below;
 * - 'assistant': the OAuth server, discovery, the tool server and the edits API, without API-level
 *   CORS (any-origin rows answer their own preflights). Its URL is the OAuth issuer, so every
 *   resource the issuer names (`<issuer>/mcp`, `<issuer>/api/v1/edits`) lives on it.
 * The edits API is on both: the console calls it on the console API, assistants on the issuer's;
 * so is the OpenAPI document (area 'docs'), whose server URL is the API it was read from.
 */
export type ApiSurface = 'console' | 'assistant';

export function apiSurfaces(route: RouteDefinition): ApiSurface[] {
  if (route.cors === 'any-origin' || route.area === 'oauth' || route.area === 'mcp') return ['assistant'];
  if (route.area === 'edits' || route.area === 'docs') return ['console', 'assistant'];
  return ['console'];
}

/** The console API's CORS configuration. */
export const CONSOLE_CORS = {
  allowHeaders: ['authorization', 'content-type', 'if-match', 'idempotency-key'],
  exposeHeaders: ['etag', 'x-request-id', 'retry-after'],
  allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
  maxAgeSeconds: 600,
} as const;

/**
 * Origins the console may call from: the comma-separated setting (context `consoleOrigins`), else
 * the origin of the console URL. Each must be an origin (scheme, host, port; no path).
 */
export function consoleOrigins(setting: string | undefined, consoleUrl: string): string[] {
  const origins = (setting ?? new URL(consoleUrl).origin)
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of origins) {
    if (new URL(origin).origin !== origin) throw new Error(`consoleOrigins: "${origin}" is not an origin`);
  }
  return origins;
}

const lower = (values: readonly string[]) => values.map((value) => value.toLowerCase());

/**
 * API Gateway's answer to a preflight on the console API: 204, with the CORS headers only when
 * the origin is allowed (the browser then refuses the call itself).
 */
export function consolePreflightHeaders(
  origin: string | undefined,
  allowed: readonly string[],
): Record<string, string> {
  if (!origin || !allowed.includes(origin)) return {};
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': CONSOLE_CORS.allowMethods.join(','),
    'access-control-allow-headers': lower(CONSOLE_CORS.allowHeaders).join(','),
    'access-control-max-age': String(CONSOLE_CORS.maxAgeSeconds),
  };
}

/** Headers API Gateway adds to an actual response of the console API for an allowed origin. */
export function consoleResponseHeaders(
  origin: string | undefined,
  allowed: readonly string[],
): Record<string, string> {
  if (!origin || !allowed.includes(origin)) return {};
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': lower(CONSOLE_CORS.exposeHeaders).join(','),
  };
}
