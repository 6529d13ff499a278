import { randomUUID } from 'node:crypto';
import type { RouteDefinition } from '#lib/http/route.ts';
import { agentEntities, type EntityName, entities } from '#lib/records/entities.ts';
import { agentRoutes } from '#lib/routes/agent.ts';
import type { HarnessInfo } from '../infra/local/harness-process.ts';
import { NETWORK_DELAY_MS } from './edits-apply.ts';
import { parseUnits } from './prices.ts';

export interface CallRow {
  operationId: string;
  status: number;
  calls: number;
  authCalls: number;
  /** Sequential round trips, the agent key's lookup included (calls sent together count once). */
  roundTrips: number;
  capacity: number;
  readUnits: number;
  writeUnits: number;
  /** Wall time through the harness, every DynamoDB call delayed by NETWORK_DELAY_MS. */
  ms: number;
}

/** By string: the ids below are spelt at run time from each entity's name, as routesFor spells them. */
const routesById: Record<string, RouteDefinition | undefined> = agentRoutes;

/**
 * Run every agent operation once through the harness (create → get → list → replace → update →
 * members → delete) and read the DynamoDB usage the harness reports for each request.
 */
export async function measureAgentCalls(harness: HarnessInfo): Promise<CallRow[]> {
  const business = harness.credentials.businesses[0];
  if (!business) throw new Error('no demo business');
  const rows: CallRow[] = [];
  const call = async (operationId: string, path: string, json?: unknown) => {
    const route = routesById[operationId];
    if (!route) throw new Error(`no route ${operationId}`);
    await warmUp(route.method, path, json);
    const started = performance.now();
    const response = await fetch(`${harness.baseUrl}${path}`, {
      method: route.method,
      headers: {
        authorization: `Bearer ${harness.credentials.agent_key}`,
        'x-local-network-delay-ms': String(NETWORK_DELAY_MS),
        ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const body =
      response.status === 204 ? undefined : ((await response.json()) as { data?: { id?: string } });
    const ms = performance.now() - started;
    if (response.status >= 300)
      throw new Error(`${operationId} answered ${response.status}: ${JSON.stringify(body)}`);
    rows.push({
      operationId,
      status: response.status,
      calls: Number(response.headers.get('x-local-dynamodb-calls')),
      authCalls: Number(response.headers.get('x-local-dynamodb-auth-calls')),
      roundTrips: Number(response.headers.get('x-local-dynamodb-all-round-trips')),
      capacity: Number(response.headers.get('x-local-dynamodb-capacity')),
      ...parseUnits(response.headers.get('x-local-dynamodb-units')),
      ms,
    });
    return body?.data;
  };
  /**
   * The harness starts each function's worker on its first request (a cold start); the figures
   * here are warm ones. So first reach the same function with a request that changes nothing: the
   * GET itself, a body with an unknown field (422), or a DELETE of an id that does not exist (404).
   */
  const warmUp = async (method: string, path: string, json: unknown) => {
    const hasBody = json !== undefined;
    const target = method === 'DELETE' ? path.replace(/[^/]+$/, randomUUID()) : path;
    const response = await fetch(`${harness.baseUrl}${target}`, {
      method,
      headers: {
        authorization: `Bearer ${harness.credentials.agent_key}`,
        ...(hasBody ? { 'content-type': 'application/json' } : {}),
      },
      body: hasBody ? JSON.stringify({ bench_warm_up: true }) : undefined,
    });
    await response.arrayBuffer();
    const expected = method === 'GET' ? 200 : method === 'DELETE' ? 404 : 422;
    if (response.status !== expected)
      throw new Error(`warming ${method} ${path} answered ${response.status}, expected ${expected}`);
  };
  const base = `/api/v1/agent/businesses/${business.id}`;
  const create = async (entity: EntityName) => {
    const definition = entities[entity];
    const created = await fetch(`${harness.baseUrl}${base}/${definition.collection}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${harness.credentials.agent_key}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(entities[entity].example),
    });
    return ((await created.json()) as { data: { id: string } }).data.id;
  };

  for (const definition of agentEntities) {
    const single = operationName(definition.name);
    const collection = `${base}/${definition.collection}`;
    const body = definition.example;
    const created = (await call(`create${single}`, collection, body)) as { id: string };
    const item = `${collection}/${created.id}`;
    await call(`get${single}`, item);
    await call(`list${plural(single)}`, collection);
    await call(`replace${single}`, item, body);
    const [firstField, firstValue] = Object.entries(body)[0] ?? [];
    await call(`update${single}`, item, { [firstField ?? '']: firstValue });
    const members = definition.members;
    if (members) {
      const memberIds = [await create(members.entity), await create(members.entity)];
      const name = `${single}${plural(operationName(members.entity))}`;
      await call(`set${name}`, `${item}/${members.segment}`, { [members.field]: memberIds });
      await call(`list${name}`, `${item}/${members.segment}`);
      await call(`set${name}`, `${item}/${members.segment}`, { [members.field]: [] });
      rows.pop();
    }
    await call(`delete${single}`, item);
  }
  return rows;
}

const operationName = (entity: string) =>
  entity.replace(/(^|_)(\w)/g, (_m, _u, c: string) => c.toUpperCase());
const plural = (name: string) => (name.endsWith('y') ? `${name.slice(0, -1)}ies` : `${name}s`);
