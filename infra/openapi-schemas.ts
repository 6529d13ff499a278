import { isDeepStrictEqual } from 'node:util';
import * as z from 'zod';
import type * as core from 'zod/v4/core';

/** A JSON Schema (2020-12, which OpenAPI 3.1 uses) as the document carries it. */
export type JsonSchema = Record<string, unknown>;

type Io = 'input' | 'output';

/** An OpenAPI parameter: one property of a route's path, query or header schema. */
export type Parameter = {
  schema: JsonSchema;
  required: boolean;
  description?: string;
  name: string;
  in: 'path' | 'query' | 'header';
};

const COMPONENTS = '#/components/schemas/';
/** The entry z.toJSONSchema puts the schemas with an `id` in, when it converts a registry. */
const SHARED = '__shared';
/** The ids the schemas without one get while they are converted: they are inlined, never named. */
const INLINE = '__inline_';

/**
 * The OpenAPI document's schemas, made by zod's own converter, `z.toJSONSchema`: it reads mini and
 * classic schemas alike (one core underneath) and their metadata (`.meta({id, description,
 * examples})` lands in zod's global registry). The document's generator takes JSON Schema objects
 * as they are, so nothing but zod needs to understand a zod schema.
 *
 * Every schema the document uses is collected first (`schema` hands out an object that is filled
 * in later), then converted at once per direction: requests as zod's input side (a defaulted field
 * is optional), responses as its output side. Converting them together is what lets a schema with
 * an `id` become one component that every use references (`$ref`), however many operations share
 * it; schemas without an id are inlined where they are used.
 */
export class DocumentSchemas {
  /** Per direction, the schemas to convert and the objects waiting for an inline schema's JSON. */
  readonly #pending: Record<
    Io,
    { registry: z.core.$ZodRegistry<{ id: string }>; slots: [string, JsonSchema][] }
  > = {
    input: { registry: z.registry<{ id: string }>(), slots: [] },
    output: { registry: z.registry<{ id: string }>(), slots: [] },
  };
  readonly #parameterLists: { object: JsonSchema; where: Parameter['in']; list: Parameter[] }[] = [];

  /**
   * The JSON Schema of a zod schema as a request (`input`) or a response (`output`) carries it: a
   * `$ref` to its component when it has an id, else (or when `inline`) the schema itself.
   */
  schema(schema: core.$ZodType, io: Io, { inline = false } = {}): JsonSchema {
    const { registry, slots } = this.#pending[io];
    const id = z.globalRegistry.get(schema)?.id;
    const key = id && !inline ? id : `${INLINE}${slots.length}`;
    const registered = registry.get(schema)?.id;
    if (registered === undefined) registry.add(schema, { id: key });
    else if (registered.startsWith(INLINE) !== key.startsWith(INLINE)) {
      throw new Error(`schema ${id} is used both as a component and inline`);
    }
    if (id && !inline) return { $ref: `${COMPONENTS}${id}` };
    const slot: JsonSchema = {};
    slots.push([registered ?? key, slot]);
    return slot;
  }

  /**
   * An operation's parameters: one per property of its path, query and header object schemas, each
   * with its schema, whether it is required, and its description; the list is filled in by
   * `finish`.
   */
  parameters(objects: [core.$ZodType | undefined, Parameter['in']][]): Parameter[] {
    const list: Parameter[] = [];
    for (const [schema, where] of objects) {
      if (schema)
        this.#parameterLists.push({ object: this.schema(schema, 'input', { inline: true }), where, list });
    }
    return list;
  }

  /**
   * Fill in every schema handed out, and return the components: the schemas with an `id`. A
   * component must read the same as a request and as a response; where it does not (a default,
   * a transform), the document could not say both, so this throws naming it.
   */
  finish(): Record<string, JsonSchema> {
    const components: Record<string, JsonSchema> = {};
    for (const io of ['input', 'output'] as const) {
      const { registry, slots } = this.#pending[io];
      const { schemas } = z.toJSONSchema(registry, { ...OPTIONS, io, uri: (id) => `${COMPONENTS}${id}` });
      const shared = ((schemas[SHARED] as JsonSchema | undefined)?.$defs ?? {}) as Record<string, JsonSchema>;
      const named = Object.entries(schemas).filter(([id]) => id !== SHARED && !id.startsWith(INLINE));
      for (const [id, json] of [...Object.entries(shared), ...named]) {
        const { $schema: _, $id: __, ...rest } = json;
        const component = withComponentRefs(rest) as JsonSchema;
        const other = components[id];
        if (other && !isDeepStrictEqual(other, component)) {
          throw new Error(`schema ${id} reads differently as a request and as a response`);
        }
        components[id] = component;
      }
      for (const [key, slot] of slots) {
        const { $schema: _, $id: __, ...json } = schemas[key] as JsonSchema;
        Object.assign(slot, withComponentRefs(json));
      }
    }
    for (const { object, where, list } of this.#parameterLists) {
      const properties = (object.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((object.required ?? []) as string[]);
      for (const [name, property] of Object.entries(properties)) {
        list.push({
          schema: property,
          required: where === 'path' || required.has(name),
          ...(typeof property.description === 'string' ? { description: property.description } : {}),
          name,
          in: where,
        });
      }
    }
    return components;
  }
}

/**
 * Where zod's conversion says more than the document means to, the override takes it back:
 * - a plain `z.object` strips unknown keys, it does not refuse them, and a response may gain
 *   fields, so only a strict object (`catchall: never`) says `additionalProperties: false`;
 * - a string format (uuid, email, date-time…) is said by `format`; the regex zod checks it with
 *   is its implementation, not part of the contract;
 * - `z.int()` is bounded by JavaScript's safe integers, which is zod's range, not the contract's.
 */
function override({ zodSchema, jsonSchema }: { zodSchema: core.$ZodTypes; jsonSchema: JsonSchema }): void {
  const def = zodSchema._zod.def as { type: string; catchall?: core.$ZodType; format?: string };
  if (
    def.type === 'object' &&
    jsonSchema.additionalProperties === false &&
    def.catchall?._zod.def.type !== 'never'
  ) {
    delete jsonSchema.additionalProperties;
  }
  if (def.type === 'string' && def.format && typeof jsonSchema.format === 'string') delete jsonSchema.pattern;
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
}

const OPTIONS = {
  target: 'draft-2020-12',
  // A schema JSON Schema cannot say (a bigint, a custom check) fails the build, not the document.
  unrepresentable: 'throw',
  cycles: 'ref',
  reused: 'inline',
  override,
} as const;

/**
 * z.toJSONSchema refers to a schema with an id as `<uri of the shared entry>#/$defs/<id>`; in the
 * document, components live at `#/components/schemas/<id>`.
 */
function withComponentRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withComponentRefs);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) =>
      key === '$ref' && typeof inner === 'string'
        ? [key, inner.replace(`${COMPONENTS}${SHARED}#/$defs/`, COMPONENTS)]
        : [key, withComponentRefs(inner)],
    ),
  );
}
