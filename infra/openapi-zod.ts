import * as classic from 'zod';
import type * as core from 'zod/v4/core';

/**
 * The run-time schemas are zod/mini (lib/validation/zod.ts); the OpenAPI generator
 * (@asteasolutions/zod-to-openapi) reads zod *classic* schemas: it calls `.meta()`, `.openapi()`,
 * `.unwrap()` and reads getters such as a string's `minLength` or a number's `format`, which mini
 * schemas do not have. Both flavours are the same core underneath — a schema is its `def` (type,
 * inner schemas, checks) — so a mini schema becomes its classic twin by building each node again
 * with the classic class of the same name (`ZodMiniEmail` → `ZodEmail`) from the same def, inner
 * schemas converted first. Checks are shared core objects and carry over as they are; the
 * metadata (ids, descriptions, examples) is copied from zod's global registry. Only the document
 * generator imports it, so of all functions only the one serving `/openapi.json` bundles it.
 */

type AnySchema = core.$ZodType;
type Def = Record<string, unknown> & { type: string };

/** Def keys that hold one schema, and those that hold a list or a record of them. */
const ONE = [
  'innerType',
  'element',
  'in',
  'out',
  'left',
  'right',
  'keyType',
  'valueType',
  'catchall',
  'rest',
];
const MANY = ['options', 'items'];

const converted = new WeakMap<AnySchema, classic.ZodType>();

const isSchema = (value: unknown): value is AnySchema =>
  typeof value === 'object' && value !== null && '_zod' in value && 'def' in (value as AnySchema)._zod;

/** The classic twin of a zod schema (a classic schema is returned as it is). */
export function toClassic<T extends AnySchema | undefined>(
  schema: T,
): T extends undefined ? undefined : classic.ZodType {
  if (schema === undefined) return undefined as never;
  return convert(schema) as never;
}

function convert(schema: AnySchema): classic.ZodType {
  if (schema instanceof classic.ZodType) return schema;
  const done = converted.get(schema);
  if (done) return done;
  const name = schema._zod.constr.name;
  const Classic = (classic as unknown as Record<string, new (def: Def) => classic.ZodType>)[
    name.replace(/^ZodMini/, 'Zod')
  ];
  if (!name.startsWith('ZodMini') || typeof Classic !== 'function') {
    throw new Error(`No zod classic counterpart for ${name}`);
  }
  const def = { ...(schema._zod.def as unknown as Def) };
  for (const key of ONE) if (isSchema(def[key])) def[key] = convert(def[key]);
  for (const key of MANY)
    if (Array.isArray(def[key])) def[key] = (def[key] as unknown[]).map(convertIfSchema);
  if (def.type === 'object') {
    def.shape = Object.fromEntries(
      Object.entries(def.shape as Record<string, AnySchema>).map(([k, v]) => [k, convert(v)]),
    );
  }
  if (def.type === 'lazy') {
    const getter = def.getter as () => AnySchema;
    def.getter = () => convert(getter());
  }
  const twin = new Classic(def);
  const metadata = classic.globalRegistry.get(schema);
  // Through `.meta()`, as a classic schema gets it: the generator learns ids (components) there.
  const result = metadata ? twin.meta(metadata) : twin;
  converted.set(schema, result);
  return result;
}

const convertIfSchema = (value: unknown) => (isSchema(value) ? convert(value) : value);
