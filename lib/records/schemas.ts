import { type EntityDefinition, type EntityName, entities } from '#lib/records/entities.ts';
import { once } from '#lib/validation/lazy.ts';
import type * as zt from '#lib/validation/zod.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * The schemas of one entity, derived from its field list so that create, replace, patch, the
 * record itself and OpenAPI can never disagree. Bodies are strict: unknown fields are a 422.
 */
export interface EntitySchemas {
  /** POST and PUT bodies: required fields required, the others optional and nullable. */
  write: zt.ZodObject;
  /** PATCH bodies (JSON Merge Patch): every field optional; nested objects may be partial. */
  patch: zt.ZodObject;
  /** The stored record as returned by the API. */
  record: zt.ZodObject;
}

const cache = new Map<EntityName, EntitySchemas>();

/** Who made the last change; only the record schema (OpenAPI) uses it, so it is built on demand. */
const Actor = once(() =>
  z.meta(
    z.object({
      type: z.enum(['user', 'agent', 'assistant']),
      id: z.meta(z.string(), {
        description: "The user's id (for an assistant: the user it acted for), or the agent key id",
      }),
      client_id: z.meta(z.optional(z.string()), { description: "An assistant's OAuth client id" }),
    }),
    { id: 'Actor', description: 'Who made the last change' },
  ),
);

/** A merge patch may send part of a nested object (`{"address": {"line2": null}}`). */
const partialIfObject = (schema: zt.ZodType): zt.ZodType =>
  schema instanceof z.ZodObject ? z.partial(schema) : schema;

function pascal(name: string): string {
  return name.replace(/(^|_)(\w)/g, (_m, _u, c: string) => c.toUpperCase());
}

/**
 * The entity's schemas, each built when first read: a create validates with `write`
 * only, an update with `patch`, and only OpenAPI reads `record`: a function's cold start builds
 * only the schema it uses (docs/cold-starts.md).
 */
export function schemasOf(entity: EntityName): EntitySchemas {
  const cached = cache.get(entity);
  if (cached) return cached;
  const definition: EntityDefinition = entities[entity];
  const build = {
    write: () => writeSchema(definition),
    patch: () => patchSchema(definition),
    record: () => recordSchema(definition),
  };
  const schemas = {} as EntitySchemas;
  for (const [part, schema] of Object.entries(build)) {
    Object.defineProperty(schemas, part, { get: once(schema), enumerable: true });
  }
  cache.set(entity, schemas);
  return schemas;
}

function writeSchema(definition: EntityDefinition): zt.ZodObject {
  const fields = Object.entries(definition.fields);
  let write = z.strictObject(
    Object.fromEntries(
      fields.map(([field, spec]) => [
        field,
        spec.required ? spec.schema() : z.optional(z.nullable(spec.schema())),
      ]),
    ),
  );
  for (const rule of definition.rules ?? [])
    write = write.check(z.refine(rule.holds, { path: rule.path, message: rule.message }));
  return z.meta(write, { id: `${pascal(definition.name)}Write` });
}

function patchSchema(definition: EntityDefinition): zt.ZodObject {
  const fields = Object.entries(definition.fields);
  return z.meta(
    z.strictObject(
      Object.fromEntries(
        fields.map(([field, spec]) => {
          const partial = partialIfObject(spec.schema());
          return [field, z.optional(spec.required ? partial : z.nullable(partial))];
        }),
      ),
    ),
    { id: `${pascal(definition.name)}Patch` },
  );
}

function recordSchema(definition: EntityDefinition): zt.ZodObject {
  const fields = Object.entries(definition.fields);
  return z.meta(
    z.object({
      id: z.string(),
      business_id: z.uuid(),
      version: z.int().check(z.gte(1)),
      created_at: z.iso.datetime(),
      updated_at: z.iso.datetime(),
      updated_by: Actor(),
      ...Object.fromEntries(
        fields.map(([field, spec]) => [field, spec.required ? spec.schema() : z.nullable(spec.schema())]),
      ),
      ...(definition.members ? { [definition.members.field]: z.array(z.uuid()) } : {}),
    }),
    { id: pascal(definition.name) },
  );
}

/** Body of the membership PUTs, e.g. `{"service_item_ids": [...]}`. */
export function membersBodySchema(entity: EntityName): zt.ZodObject {
  const members = entities[entity].members;
  if (!members) throw new Error(`${entity} has no members`);
  return z.meta(
    z.strictObject({
      [members.field]: z.array(z.uuid()).check(
        z.maxLength(members.max),
        z.refine((ids) => new Set(ids).size === ids.length, 'ids must not repeat'),
      ),
    }),
    { id: `${pascal(entity)}Members` },
  );
}
