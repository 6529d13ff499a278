import fc from 'fast-check';
import { inject } from 'vitest';
import type { RouteDefinition } from '#lib/http/route.ts';
import { agentEntities } from '#lib/records/entities.ts';
import { png } from './images.ts';
import { type ObservedResponse, operationOf } from './openapi-contract.ts';
import { type KnownValues, validValue } from './schema-arbitraries.ts';
import type { TenantWorld } from './tenant-world.ts';

/**
 * Concrete HTTP requests for route-table rows: path ids taken from a TenantWorld, and request
 * bodies the route's own zod schema accepts, so that a refusal the tests observe is the
 * credential's doing and not a 422.
 */

/** A path parameter, named by the segment before it: `faqs/{faq_id}`, `users/{entry_id}`, … */
type IdResolver = (world: TenantWorld) => string;

const agentIdResolvers: Record<string, IdResolver> = Object.fromEntries(
  agentEntities.map((definition) => [
    `${definition.collection}/{${definition.idParam}}`,
    (world: TenantWorld) => world.victim.records[definition.name as keyof TenantWorld['victim']['records']],
  ]),
);

/**
 * What every path parameter of the route table names. A route with a parameter missing here makes
 * the tenant matrix fail (tenantMatrixGaps) until someone says what the parameter names.
 */
export const pathIdResolvers: Record<string, IdResolver> = {
  ...agentIdResolvers,
  'businesses/{business_id}': (w) => w.victim.businessId,
  'sessions/{session_id}': (w) => w.victim.sessionId,
  'records/{entity}': () => 'faq',
  '{entity}/{record_id}': (w) => w.victim.records.faq,
  'changesets/{changeset_id}': (w) => w.victim.changesetId,
  'items/{item_id}': (w) => w.victim.changesetItemId,
  'change-log/{entry_id}': (w) => w.victim.changeLogEntryId,
  'users/{entry_id}': (w) => w.victim.inviteId,
  'platform-admin-invites/{invite_id}': (w) => w.victim.inviteId,
  'requests/{request_id}': (w) => w.victim.consentRequestId,
  'grants/{grant_id}': (w) => w.victim.grantId,
  'members/{user_id}': (w) => w.victim.ownerUserId,
  'photos/{photo_id}': (w) => w.victim.photoId,
  'gallery/{photo_id}': (w) => w.galleryPhotoId,
  '.well-known/{proxy+}': () => 'no-such-document',
  'webhooks/{webhook_id}': (w) => w.victim.webhookId,
  'deliveries/{delivery_id}': (w) => w.victim.webhookDeliveryId,
};

/** The `segment/{param}` keys of a route's path parameters. */
export function pathParamKeys(route: RouteDefinition): string[] {
  const segments = route.path.split('/');
  return segments.flatMap((segment, index) =>
    segment.startsWith('{') ? [`${segments[index - 1] ?? ''}/${segment}`] : [],
  );
}

/** Values by name for ids that appear in bodies and queries (e.g. open a session on a business). */
export const knownValues = (world: TenantWorld): KnownValues => ({
  business_id: fc.constant(world.victim.businessId),
  source_asset_id: fc.constant(world.victim.photoId),
});

/** The route's path with its parameters filled in (values from `paramValue`, URL-encoded). */
export function fillPath(route: RouteDefinition, paramValue: (key: string) => string): string {
  const segments = route.path.split('/');
  return segments
    .map((segment, index) =>
      segment.startsWith('{')
        ? encodeURIComponent(paramValue(`${segments[index - 1] ?? ''}/${segment}`))
        : segment,
    )
    .join('/');
}

export function victimPath(route: RouteDefinition, world: TenantWorld): string {
  return fillPath(route, (key) => {
    const resolve = pathIdResolvers[key];
    if (!resolve) throw new Error(`${route.operationId}: the tenant matrix does not know what ${key} names`);
    return resolve(world);
  });
}

export interface HttpRequest {
  method: string;
  /** Path and query string. */
  path: string;
  headers: Record<string, string>;
  body?: string | FormData | URLSearchParams;
}

/** Parameters of one kind (`query`, `header`) from the OpenAPI operation. */
// biome-ignore lint/suspicious/noExplicitAny: OpenAPI parameter objects are loose JSON.
export const parametersIn = (route: RouteDefinition, where: string): any[] =>
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  (operationOf(route).parameters ?? []).filter((p: any) => p.in === where);

/** The JSON Schema of the route's request body, as OpenAPI publishes it. */
export function bodySchemaOf(route: RouteDefinition) {
  const content = operationOf(route).requestBody?.content ?? {};
  const first = Object.values(content)[0] as { schema?: unknown } | undefined;
  return first?.schema;
}

const substitute = (value: unknown, known: Record<string, unknown>): unknown => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [key, key in known ? known[key] : substitute(inner, known)]),
  );
};

/**
 * A body the route's zod schema accepts: its example (ids replaced by the world's) or else a value
 * generated from its published schema. Throws when neither passes, so a route never silently
 * gets a 422-shaped body.
 */
export function validJsonBody(route: RouteDefinition, world: TenantWorld): unknown {
  const schema = route.request.body;
  if (!schema) return undefined;
  const known = { business_id: world.victim.businessId, source_asset_id: world.victim.photoId };
  const candidates: unknown[] = [];
  if (route.example !== undefined) candidates.push(substitute(route.example, known));
  candidates.push(
    ...fc.sample(validValue(bodySchemaOf(route), knownValues(world)), { seed: 42, numRuns: 50 }),
  );
  const accepted = candidates.find((candidate) => schema.safeParse(candidate).success);
  if (accepted === undefined) {
    throw new Error(`${route.operationId}: no valid body could be built; give the route an example`);
  }
  return accepted;
}

/** A well-formed request to the victim's ids, without credentials. */
export function validRequest(route: RouteDefinition, world: TenantWorld): HttpRequest {
  const query = new URLSearchParams();
  for (const parameter of parametersIn(route, 'query')) {
    if (parameter.required && parameter.name === 'business_id')
      query.set('business_id', world.victim.businessId);
    else if (parameter.required)
      throw new Error(`${route.operationId}: no value for required query ${parameter.name}`);
  }
  const search = query.size > 0 ? `?${query}` : '';
  const request: HttpRequest = {
    method: route.method,
    path: `${victimPath(route, world)}${search}`,
    headers: {},
  };
  if (route.auth === 'mcp') request.headers.accept = 'application/json, text/event-stream';
  if (!route.request.body) return request;
  switch (route.bodyFormat ?? 'json') {
    case 'json':
      request.headers['content-type'] = 'application/json';
      request.body = JSON.stringify(validJsonBody(route, world));
      return request;
    case 'multipart': {
      const form = new FormData();
      form.set('file', new Blob([png(4, 4, [9, 9, 9])], { type: 'image/png' }), 'edit.png');
      form.set(
        'meta',
        JSON.stringify({ business_id: world.victim.businessId, source_asset_id: world.victim.photoId }),
      );
      request.body = form;
      return request;
    }
    case 'form':
      request.body = new URLSearchParams(validJsonBody(route, world) as Record<string, string>);
      return request;
  }
}

export interface SentResponse extends ObservedResponse {
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are loose JSON.
  json: any;
}

/** Send a request to the harness as any HTTP client would (redirects not followed). */
export async function send(request: HttpRequest): Promise<SentResponse> {
  const response = await fetch(`${inject('harness').baseUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body ?? null,
    redirect: 'manual',
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** A long text cut to `max` characters, saying how long it was. */
const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max)}…(${text.length} chars)`;

/** One line describing a request and its response, for failure messages. */
export function describeExchange(request: HttpRequest, response: SentResponse): string {
  const body =
    typeof request.body === 'string'
      ? clip(request.body, 300)
      : request.body
        ? `[${request.body.constructor.name}]`
        : '';
  const { authorization, ...headers } = request.headers;
  const credential = authorization ? { authorization: `${authorization.slice(0, 16)}…` } : {};
  return `${request.method} ${clip(request.path, 300)} ${clip(JSON.stringify({ ...headers, ...credential }), 300)} ${body}\n  → ${response.status} ${response.headers.get('content-type')} ${clip(response.text, 400)}`;
}
