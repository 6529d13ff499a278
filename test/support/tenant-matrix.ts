import type { RouteDefinition } from '#lib/http/route.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { contractProblems, resolveRef } from './openapi-contract.ts';
import { MATRIX_AUTH_KINDS, type RefusedCredential, refusedCredentials } from './refused-credentials.ts';
import {
  bodySchemaOf,
  describeExchange,
  parametersIn,
  pathIdResolvers,
  pathParamKeys,
  send,
  validRequest,
} from './route-requests.ts';
import type { TenantWorld } from './tenant-world.ts';

/**
 * The tenant matrix: every route of the route table × every credential it must refuse,
 * asked for a real tenant's ids with a request that is otherwise valid.
 *
 * Ordering the service promises (docs/decisions.md "Order of checks"): authentication (401)
 * before anything; then body parsing and schema validation (400/413/415/422), which look at
 * nothing but the request; then authorisation (403/404) before any tenant data is read. A 422
 * would therefore leak nothing, but it would also hide whether the authorisation check is there,
 * so the matrix sends bodies the route's own schema accepts and counts a 422 as a failure.
 */

/** Routes of these auth kinds; throws on a kind the matrix does not know. */
export function matrixRoutes(kinds: readonly RouteDefinition['auth'][]): RouteDefinition[] {
  for (const route of routeTable) {
    if (!(MATRIX_AUTH_KINDS as readonly string[]).includes(route.auth)) {
      throw new Error(`${route.operationId}: the tenant matrix does not know auth kind '${route.auth}'`);
    }
  }
  return routeTable.filter((route) => kinds.includes(route.auth));
}

/** Whether the route names something of a tenant: a path id, or a business_id in its query or body. */
export function takesId(route: RouteDefinition): boolean {
  if (pathParamKeys(route).length > 0) return true;
  if (parametersIn(route, 'query').some((parameter) => parameter.name === 'business_id')) return true;
  const body = resolveRef(bodySchemaOf(route));
  return Boolean(body?.properties && 'business_id' in body.properties);
}

/** What the matrix cannot handle about the route table today (empty when it covers every route). */
export function tenantMatrixGaps(): string[] {
  const gaps: string[] = [];
  for (const route of routeTable) {
    if (!(MATRIX_AUTH_KINDS as readonly string[]).includes(route.auth)) {
      gaps.push(`${route.operationId}: unknown auth kind '${route.auth}'`);
    }
    for (const key of pathParamKeys(route)) {
      if (!pathIdResolvers[key]) gaps.push(`${route.operationId}: no tenant id for ${key}`);
    }
  }
  return gaps;
}

const SUCCESS = (status: number) => status >= 200 && status < 300;

/** Everything wrong with how the route answered one refused credential. */
export async function refusalProblems(
  route: RouteDefinition,
  world: TenantWorld,
  credential: RefusedCredential,
): Promise<string[]> {
  const request = validRequest(route, world);
  request.headers = { ...request.headers, ...credential.headers };
  const response = await send(request);
  const problems: string[] = [];
  const expected = credential.expect === 'unauthenticated' ? [401] : [403, 404];
  if (SUCCESS(response.status)) problems.push(`answered ${response.status}: the credential was accepted`);
  else if (!expected.includes(response.status))
    problems.push(`answered ${response.status}, expected ${expected.join(' or ')}`);
  if (response.status === 401 && !response.headers.get('www-authenticate')) {
    problems.push('a 401 without WWW-Authenticate');
  }
  if (
    !SUCCESS(response.status) &&
    !(response.json?.success === false && typeof response.json?.error?.code === 'string')
  ) {
    problems.push('the refusal is not an ErrorResponse');
  }
  if (response.text.includes(world.marker)) problems.push("the body carries the other tenant's marker");
  const sent = `${request.path} ${typeof request.body === 'string' ? request.body : ''}`;
  for (const id of world.victimIds()) {
    if (!sent.includes(id) && response.text.includes(id))
      problems.push(`the body carries the other tenant's id ${id}`);
  }
  problems.push(...contractProblems(route, response).map((problem) => `contract: ${problem}`));
  return problems.map(
    (problem) => `${credential.name}: ${problem}\n    ${describeExchange(request, response)}`,
  );
}

/** Run the route's whole column of the matrix, a few requests at a time. */
export async function routeRefusalProblems(route: RouteDefinition, world: TenantWorld): Promise<string[]> {
  const credentials = (await refusedCredentials(world, route)).filter(
    (credential) => credential.expect === 'unauthenticated' || takesId(route),
  );
  const problems: string[] = [];
  const queue = [...credentials];
  const worker = async () => {
    for (let credential = queue.shift(); credential; credential = queue.shift()) {
      problems.push(...(await refusalProblems(route, world, credential)));
    }
  };
  await Promise.all([worker(), worker(), worker()]);
  return problems;
}
