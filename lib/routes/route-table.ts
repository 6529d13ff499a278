import type { RouteDefinition } from '#lib/http/route.ts';
import { adminRoutes } from '#lib/routes/admin.ts';
import { agentRoutes } from '#lib/routes/agent.ts';
import { blogRoutes } from '#lib/routes/blog.ts';
import { consentRoutes } from '#lib/routes/consent.ts';
import { docsRoutes } from '#lib/routes/docs.ts';
import { editsRoutes } from '#lib/routes/edits.ts';
import { eventRoutes } from '#lib/routes/events.ts';
import { mcpRoutes } from '#lib/routes/mcp.ts';
import { mediaRoutes } from '#lib/routes/media.ts';
import { oauthRoutes } from '#lib/routes/oauth.ts';
import { webhookRoutes } from '#lib/routes/webhooks.ts';

/**
 * Every operation of the service. CDK (infra/api-stack.ts), the local harness, the invoke CLI and
 * the OpenAPI document are all built from this list; adding an operation starts here.
 */
export const routeTable: readonly RouteDefinition[] = [
  ...Object.values(blogRoutes),
  ...Object.values(adminRoutes),
  ...Object.values(agentRoutes),
  ...Object.values(eventRoutes),
  ...Object.values(webhookRoutes),
  ...Object.values(editsRoutes),
  ...Object.values(consentRoutes),
  ...Object.values(oauthRoutes),
  ...Object.values(mcpRoutes),
  ...Object.values(mediaRoutes),
  ...Object.values(docsRoutes),
];

export function findRoute(operationId: string): RouteDefinition | undefined {
  return routeTable.find((route) => route.operationId === operationId);
}
