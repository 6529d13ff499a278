import type { RouteDefinition } from '#lib/http/route.ts';
import { findRoute, routeTable } from '#lib/routes/route-table.ts';
import { type Command, usageError } from '../../command-line.ts';
import { fail } from './cli-failure.ts';
import { closestMatch } from './closest-match.ts';

/**
 * The route an `npm run event` / `invoke` argument names, or one line saying what was meant: no
 * operation (or more than one) is a usage mistake; an unknown one names the closest.
 */
export function operationNamed(command: Command, positionals: string[], name: string): RouteDefinition {
  const ids = routeTable.map((route) => route.operationId);
  const [operationId, extra] = positionals;
  if (!operationId)
    usageError(
      command,
      `name an operation: npm run ${name} -- <operationId> (e.g. ${ids[0]}; npm run openapi lists them)`,
    );
  if (extra !== undefined) usageError(command, `unexpected argument '${extra}'`);
  const route = findRoute(operationId);
  if (!route) fail(`unknown operation '${operationId}'; did you mean ${closestMatch(operationId, ids)}?`);
  return route;
}
