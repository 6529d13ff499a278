import type { RouteDefinition } from '#lib/http/route.ts';

/**
 * The kinds of function the cold-start table is summed up by: functions of one kind share their
 * credential, their calls and their SDK clients, so they sit near one another against the floor.
 * In the order the summary lists them.
 */
export const COLD_KINDS = [
  'agent reads',
  'agent changes',
  'agent creates',
  'console and edits',
  'internal media reads',
  'photo bytes (the S3 client)',
  'tool server',
  'OAuth endpoints',
  'documents (no credential, no call)',
] as const;

export type ColdKind = (typeof COLD_KINDS)[number];

export function coldKindOf(
  route: Pick<RouteDefinition, 'auth' | 'method' | 'path' | 'permissions'>,
): ColdKind {
  if (route.auth === 'agent') {
    if (route.method === 'GET') return 'agent reads';
    return route.method === 'POST' ? 'agent creates' : 'agent changes';
  }
  if (route.auth === 'console' || route.auth === 'edits') return 'console and edits';
  if (route.auth === 'internal') {
    return route.permissions?.photos ? 'photo bytes (the S3 client)' : 'internal media reads';
  }
  if (route.auth === 'mcp') return 'tool server';
  // The metadata documents and the OpenAPI document are answered from what the bundle carries.
  return route.path.startsWith('/oauth/') ? 'OAuth endpoints' : 'documents (no credential, no call)';
}
