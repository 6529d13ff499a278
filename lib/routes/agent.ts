import { BusinessPathParams } from '#lib/http/common-schemas.ts';
import type { RouteDefinition } from '#lib/http/route.ts';
import {
  type AgentEntityName,
  agentEntities,
  type EntityDefinition,
  type EntityName,
  entities,
  type MemberEntityOf,
} from '#lib/records/entities.ts';
import { membersBodySchema, schemasOf } from '#lib/records/schemas.ts';
import { lazyRow } from '#lib/routes/lazy-row.ts';
import { once } from '#lib/validation/lazy.ts';
import type * as zt from '#lib/validation/zod.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * The agent API (docs/records.md): for each record kind, list / create /
 * get / replace / update / delete, plus the membership PUT and GET of packages and service items —
 * 46 operations, generated from the entity definitions so that every kind behaves the same way.
 */
const BASE = '/api/v1/agent/businesses/{business_id}';

const ListQuery = once(() =>
  z.strictObject({
    cursor: z.meta(z.optional(z.string().check(z.maxLength(1000))), {
      description: 'next_cursor of the previous page',
    }),
    limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(500)), 100),
  }),
);

/** `If-Match: "<version>"` (also W/"3" or a bare 3); a mismatch answers 409 VERSION_CONFLICT. */
const IfMatchHeaders = once(() =>
  z.object({
    'if-match': z.optional(
      z.pipe(
        z.string().check(z.regex(/^(W\/)?"?\d{1,12}"?$/, 'a version such as "3"')),
        z.transform((value: string) => Number(value.replace(/\D/g, ''))),
      ),
    ),
  }),
);

const pascal = (name: string) => name.replace(/(^|_)(\w)/g, (_m, _u, c: string) => c.toUpperCase());
const plural = (name: string) => (name.endsWith('y') ? `${name.slice(0, -1)}ies` : `${name}s`);
const kebab = (name: string) => name.replace(/_/g, '-');

function itemParams(definition: EntityDefinition & { idParam: string }) {
  return z.extend(BusinessPathParams, { [definition.idParam]: z.uuid() });
}

/**
 * The rows are plain data built at load; their schemas are built by `lazyRow` when first read, so
 * a function constructs only those of its own operation.
 */
function routesFor(
  definition: EntityDefinition & { collection: string; idParam: string },
): RouteDefinition[] {
  const entity = definition.name;
  const single = pascal(entity);
  const many = plural(single);
  const collection = `${BASE}/${definition.collection}`;
  const item = `${collection}/{${definition.idParam}}`;
  const schemas = () => schemasOf(entity);
  const ItemParams = once(() => itemParams(definition));
  const common = {
    area: 'agent',
    auth: 'agent',
    envelope: 'success',
    permissions: { table: 'readwrite' },
  } as const;
  const handler = (verb: string, noun: string) => `functions/agent/${verb}-${kebab(noun)}.ts`;
  const routes: RouteDefinition[] = [
    lazyRow(
      {
        ...common,
        operationId: `list${many}`,
        method: 'GET',
        path: collection,
        handler: handler('list', plural(entity)),
        summary: `List the business's ${plural(definition.title)} (by position, then creation)`,
        successStatus: 200,
        errors: [403],
        permissions: { table: 'read' },
      },
      {
        request: () => ({ params: BusinessPathParams, query: ListQuery() }),
        response: () => z.array(schemas().record),
      },
    ),
    lazyRow(
      {
        ...common,
        operationId: `create${single}`,
        method: 'POST',
        path: collection,
        handler: handler('create', entity),
        idempotent: true,
        summary: `Create a ${definition.title}`,
        successStatus: 201,
        example: definition.example,
        errors: [403, 404, 409],
      },
      {
        request: () => ({ params: BusinessPathParams, body: schemas().write }),
        response: () => schemas().record,
      },
    ),
    lazyRow(
      {
        ...common,
        operationId: `get${single}`,
        method: 'GET',
        path: item,
        handler: handler('get', entity),
        summary: `Read one ${definition.title}`,
        successStatus: 200,
        errors: [403, 404],
        permissions: { table: 'read' },
      },
      { request: () => ({ params: ItemParams() }), response: () => schemas().record },
    ),
    lazyRow(
      {
        ...common,
        operationId: `replace${single}`,
        method: 'PUT',
        path: item,
        handler: handler('replace', entity),
        summary: `Replace a ${definition.title} (fields not sent are cleared)`,
        successStatus: 200,
        example: definition.example,
        errors: [403, 404, 409],
      },
      {
        request: () => ({ params: ItemParams(), headers: IfMatchHeaders(), body: schemas().write }),
        response: () => schemas().record,
      },
    ),
    lazyRow(
      {
        ...common,
        operationId: `update${single}`,
        method: 'PATCH',
        path: item,
        handler: handler('update', entity),
        summary: `Change some fields of a ${definition.title} (JSON Merge Patch: null clears)`,
        successStatus: 200,
        example: Object.fromEntries(Object.entries(definition.example).slice(0, 1)),
        errors: [403, 404, 409],
      },
      {
        request: () => ({ params: ItemParams(), headers: IfMatchHeaders(), body: schemas().patch }),
        response: () => schemas().record,
      },
    ),
    lazyRow(
      {
        ...common,
        operationId: `delete${single}`,
        method: 'DELETE',
        path: item,
        handler: handler('delete', entity),
        summary: `Delete a ${definition.title} (409 while other records reference it)`,
        successStatus: 204,
        errors: [403, 404, 409],
      },
      { request: () => ({ params: ItemParams(), headers: IfMatchHeaders() }) },
    ),
  ];
  const members = definition.members;
  if (members) {
    const memberTitle = plural(entities[members.entity].title);
    const noun = `${entity}_${plural(members.entity)}`;
    routes.push(
      lazyRow(
        {
          ...common,
          operationId: `set${single}${plural(pascal(members.entity))}`,
          method: 'PUT',
          path: `${item}/${members.segment}`,
          handler: handler('set', noun),
          summary: `Set the ${memberTitle} of a ${definition.title} (in this order)`,
          successStatus: 200,
          example: { [members.field]: [] },
          errors: [403, 404, 409],
        },
        {
          request: () => ({
            params: ItemParams(),
            headers: IfMatchHeaders(),
            body: membersBodySchema(entity),
          }),
          response: () => schemas().record,
        },
      ),
      lazyRow(
        {
          ...common,
          operationId: `list${single}${plural(pascal(members.entity))}`,
          method: 'GET',
          path: `${item}/${members.segment}`,
          handler: handler('list', noun),
          summary: `List the ${memberTitle} of a ${definition.title}, in its order`,
          successStatus: 200,
          errors: [403, 404],
          permissions: { table: 'read' },
        },
        {
          request: () => ({ params: ItemParams() }),
          response: () => z.array(schemasOf(members.entity).record),
        },
      ),
    );
  }
  return routes;
}

/** The type-level twins of `pascal` and `plural` above, to spell operation ids as routesFor does. */
type Pascal<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Capitalize<Head>}${Pascal<Tail>}`
  : Capitalize<S>;
type Plural<S extends string> = S extends `${infer Stem}y` ? `${Stem}ies` : `${S}s`;

/** A row of the agent API whose request parts are these schemas, so its handler's input is typed. */
type AgentRoute<Request extends RouteDefinition['request']> = Omit<RouteDefinition, 'request'> & {
  readonly request: Request;
};
type Params = typeof BusinessPathParams;
type ItemParams = ReturnType<typeof itemParams>;
type IfMatch = ReturnType<typeof IfMatchHeaders>;
type Body = zt.ZodObject;
type MembersOwner = {
  [E in AgentEntityName]: [MemberEntityOf<E>] extends [never] ? never : E;
}[AgentEntityName];

/**
 * The agent routes by operation id, each id derived from the entity definitions the way
 * `routesFor` names it (`updateService`, `listPackageServiceItems`), so a misspelt id does not
 * compile and each route carries its own request types.
 */
export type AgentRoutes = {
  [E in AgentEntityName as `list${Plural<Pascal<E>>}`]: AgentRoute<{
    params: Params;
    query: ReturnType<typeof ListQuery>;
  }>;
} & { [E in AgentEntityName as `create${Pascal<E>}`]: AgentRoute<{ params: Params; body: Body }> } & {
  [E in AgentEntityName as `get${Pascal<E>}`]: AgentRoute<{ params: ItemParams }>;
} & {
  [E in AgentEntityName as `${'replace' | 'update'}${Pascal<E>}`]: AgentRoute<{
    params: ItemParams;
    headers: IfMatch;
    body: Body;
  }>;
} & {
  [E in AgentEntityName as `delete${Pascal<E>}`]: AgentRoute<{ params: ItemParams; headers: IfMatch }>;
} & {
  [E in MembersOwner as `set${Pascal<E>}${Plural<Pascal<MemberEntityOf<E>>>}`]: AgentRoute<{
    params: ItemParams;
    headers: IfMatch;
    body: Body;
  }>;
} & {
  [E in MembersOwner as `list${Pascal<E>}${Plural<Pascal<MemberEntityOf<E>>>}`]: AgentRoute<{
    params: ItemParams;
  }>;
};

export type AgentOperationId = keyof AgentRoutes;

/**
 * Every agent route by operation id. Built from the same definitions at run time; that its ids are
 * exactly `AgentOperationId` is tested (test/unit/agent-routes.test.ts).
 */
export const agentRoutes = Object.fromEntries(
  agentEntities.flatMap(routesFor).map((route) => [route.operationId, route]),
) as AgentRoutes;

/**
 * The route of one agent operation, typed by its id: a wrong id does not compile, and one that
 * gets past the compiler (a cast) throws at load.
 */
export function agentRoute<Id extends AgentOperationId>(operationId: Id): AgentRoutes[Id] {
  const route = agentRoutes[operationId];
  if (!route) throw new Error(`No agent route ${operationId}`);
  return route;
}

export type { EntityName };
