import type { RouteDefinition } from '#lib/http/route.ts';
import { findRoute, routeTable } from '#lib/routes/route-table.ts';
import { fail } from './cli-failure.ts';
import { closestMatch } from './closest-match.ts';

/** The route an `npm run event` / `invoke` argument names, or one line saying what was meant. */
export function operationNamed(operationId: string | undefined, command: string): RouteDefinition {
  const ids = routeTable.map((route) => route.operationId);
  if (!operationId)
    fail(
      `name an operation: npm run ${command} -- <operationId> (e.g. ${ids[0]}; npm run openapi lists them)`,
    );
  const route = findRoute(operationId);
  if (!route) fail(`unknown operation '${operationId}'; did you mean ${closestMatch(operationId, ids)}?`);
  return route;
}
