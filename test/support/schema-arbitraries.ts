import fc from 'fast-check';
import { type JsonSchema, resolveRef } from './openapi-contract.ts';

/**
 * fast-check arbitraries of JSON values from the request schemas of the OpenAPI document (which
 * come from the route table's zod schemas). `validValue` aims at values the schema accepts — zod
 * refinements the JSON Schema cannot express (salary min ≤ max, …) may still refuse some, which
 * the contract allows (a documented 422). `oddValue` aims next to the schema: boundaries, wrong
 * types, odd text.
 */

/** Values by property name that must be real (e.g. the tenant's own business id). */
export type KnownValues = Record<string, fc.Arbitrary<unknown>>;

const MAX_ITEMS = 3;
const MAX_TEXT = 24;

const plainText = (minLength: number, maxLength: number) =>
  fc.string({
    unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'),
    minLength,
    maxLength: Math.max(minLength, maxLength),
  });

function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
  switch (schema.format) {
    case 'uuid':
      return fc.uuid({ version: 4 });
    case 'email':
      return fc.stringMatching(/^[a-z]{1,10}@[a-z]{1,10}\.example$/);
    case 'uri':
    case 'url':
      return fc.stringMatching(/^https:\/\/[a-z]{1,10}\.example\/[a-z0-9]{0,10}$/);
    case 'date-time':
      return fc
        .date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
        .map((date) => date.toISOString());
    case 'date':
      return fc
        .date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
        .map((date) => date.toISOString().slice(0, 10));
    case 'binary':
      return plainText(1, MAX_TEXT);
    default:
      break;
  }
  if (typeof schema.pattern === 'string') {
    const max = schema.maxLength ?? Number.POSITIVE_INFINITY;
    const min = schema.minLength ?? 0;
    return fc
      .stringMatching(new RegExp(schema.pattern))
      .filter((value) => value.length >= min && value.length <= max);
  }
  const min = schema.minLength ?? 0;
  const max = Math.min(schema.maxLength ?? MAX_TEXT, Math.max(min, MAX_TEXT));
  return plainText(Math.max(min, 1), max);
}

function numberOf(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : (schema.minimum ?? -1000);
  const max =
    schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : (schema.maximum ?? 100_000);
  if (integer) return fc.integer({ min: Math.ceil(min), max: Math.floor(max) });
  return fc.oneof(
    fc.integer({ min: Math.ceil(min), max: Math.floor(max) }),
    fc
      .double({ min, max, noNaN: true, noDefaultInfinity: true })
      .filter((v) => v === 0 || Math.abs(v) > 1e-9),
  );
}

function ofType(type: string, schema: JsonSchema, known: KnownValues, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return stringOf(schema);
    case 'integer':
      return numberOf(schema, true);
    case 'number':
      return numberOf(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = schema.items ? validValue(schema.items, known, depth + 1) : fc.jsonValue({ maxDepth: 1 });
      const minLength = schema.minItems ?? 0;
      return fc.array(items, {
        minLength,
        maxLength: Math.max(minLength, Math.min(schema.maxItems ?? MAX_ITEMS, MAX_ITEMS)),
      });
    }
    case 'object': {
      const properties: Record<string, JsonSchema> = schema.properties ?? {};
      const model = Object.fromEntries(
        Object.entries(properties).map(([name, property]) => [
          name,
          known[name] ?? validValue(property, known, depth + 1),
        ]),
      );
      const required: string[] = schema.required ?? [];
      return fc.record(model, { requiredKeys: required.filter((name) => name in model) });
    }
    default:
      throw new Error(`schema-arbitraries: no generator for JSON Schema type '${type}'`);
  }
}

/** Values the schema (as JSON Schema) accepts. */
export function validValue(input: JsonSchema, known: KnownValues = {}, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolveRef(input);
  if (schema === undefined || schema === true || Object.keys(schema).length === 0 || depth > 6) {
    return fc.jsonValue({ maxDepth: 2 });
  }
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives))
    return fc.oneof(...alternatives.map((s: JsonSchema) => validValue(s, known, depth)));
  if (Array.isArray(schema.allOf)) {
    if (schema.allOf.length === 1) return validValue(schema.allOf[0], known, depth);
    throw new Error('schema-arbitraries: allOf with several schemas is not supported');
  }
  if (Array.isArray(schema.type))
    return fc.oneof(...schema.type.map((t: string) => ofType(t, schema, known, depth)));
  if (typeof schema.type === 'string') return ofType(schema.type, schema, known, depth);
  if (schema.properties) return ofType('object', schema, known, depth);
  return fc.jsonValue({ maxDepth: 2 });
}

/** Strings that trip naive code: control characters, NUL, RTL overrides, emoji, combining marks, lone surrogates. */
export const oddString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\u202Eevil\u202C',
    'مرحبا',
    '👩‍👩‍👧‍👦🏳️‍🌈',
    'e\u0301\u0301\u0301',
    '\uD800',
    '\uFEFF',
    '\r\n\t',
    '../../etc/passwd',
    '<script>alert(1)</script>',
    "' OR '1'='1",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection probe, meant literally.
    '${jndi:ldap://x}',
    '%00',
    'null',
    'undefined',
    '__proto__',
    '0',
    '-1',
    '1e309',
    'NaN',
    'ÄÖÜß',
    'ＡＢＣ',
    'https://example.com/a b',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.integer({ min: 1, max: 20_000 }).map((n) => 'x'.repeat(n)),
);

/** A value of another JSON type than the schema asks for. */
const wrongType = (schema: JsonSchema): fc.Arbitrary<unknown> => {
  const types = new Set(Array.isArray(schema.type) ? schema.type : [schema.type]);
  const candidates: fc.Arbitrary<unknown>[] = [];
  if (!types.has('string')) candidates.push(fc.string({ maxLength: 8 }));
  if (!types.has('integer') && !types.has('number')) candidates.push(fc.integer(), fc.double());
  if (!types.has('boolean')) candidates.push(fc.boolean());
  if (!types.has('null')) candidates.push(fc.constant(null));
  if (!types.has('array')) candidates.push(fc.array(fc.integer(), { maxLength: 2 }));
  if (!types.has('object')) candidates.push(fc.constant({}), fc.constant({ nested: { deeper: [1] } }));
  return fc.oneof(...candidates);
};

/** The string formats a schema (or any of its alternatives) declares. */
function formatsOf(schema: JsonSchema): string[] {
  const alternatives: JsonSchema[] = schema.anyOf ?? schema.oneOf ?? [];
  return [schema.format, ...alternatives.map((alternative) => resolveRef(alternative)?.format)].filter(
    (format): format is string => typeof format === 'string' && format in FORMAT_NEAR_MISSES,
  );
}

/** Values at and just past the schema's limits. */
function boundaries(schema: JsonSchema): fc.Arbitrary<unknown>[] {
  const out: fc.Arbitrary<unknown>[] = [];
  if (typeof schema.maxLength === 'number') {
    out.push(fc.constant('a'.repeat(schema.maxLength)), fc.constant('a'.repeat(schema.maxLength + 1)));
  }
  if (typeof schema.minLength === 'number' && schema.minLength > 0) {
    out.push(fc.constant('a'.repeat(schema.minLength - 1)));
  }
  for (const limit of [schema.minimum, schema.maximum, schema.exclusiveMinimum, schema.exclusiveMaximum]) {
    if (typeof limit === 'number') out.push(fc.constantFrom(limit, limit - 1, limit + 1, limit + 0.5));
  }
  if (typeof schema.maxItems === 'number') {
    out.push(fc.constant(Array.from({ length: schema.maxItems + 1 }, () => null)));
  }
  if (schema.type === 'integer' || schema.type === 'number') {
    out.push(fc.constantFrom(2 ** 53, -(2 ** 53), 1e308, -0, 1e-320, 0.1));
  }
  return out;
}

/** Strings that look like the format but are not (what a lax validator lets through). */
const FORMAT_NEAR_MISSES: Record<string, string[]> = {
  uri: [
    'https://example.com/a b',
    'https://example.com/<script>',
    'javascript:alert(1)',
    'http://',
    'example.com',
    'https://exa mple.com',
  ],
  email: ['a@b', 'a b@example.com', 'a@@example.com', '<a@example.com>', 'a@example.com\n'],
  uuid: [
    '3F1C2B0E-8D6A-4A52-9A3E-1B2C3D4E5F60',
    '3f1c2b0e8d6a4a529a3e1b2c3d4e5f60',
    '3f1c2b0e-8d6a-4a52-9a3e-1b2c3d4e5f6',
  ],
  'date-time': [
    '2026-13-01T00:00:00Z',
    '2026-01-01',
    '2026-01-01T25:00:00Z',
    '2026-02-30T00:00:00Z',
    '2026-01-01 00:00:00',
  ],
  date: ['2026-13-01', '2026-02-30', '01/02/2026'],
};

/** A value next to what the schema accepts (it may happen to be valid; the contract decides). */
export function oddValue(input: JsonSchema): fc.Arbitrary<unknown> {
  const schema = resolveRef(input) ?? {};
  return fc.oneof(
    { arbitrary: wrongType(schema), weight: 2 },
    { arbitrary: oddString, weight: 2 },
    ...boundaries(schema).map((arbitrary) => ({ arbitrary, weight: 1 })),
    ...formatsOf(schema).map((format) => ({
      arbitrary: fc.constantFrom(...(FORMAT_NEAR_MISSES[format] ?? [''])),
      weight: 4,
    })),
    { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 1 },
  );
}

/**
 * A valid body with one thing wrong: a property replaced by an odd value, an unknown property, a
 * required one removed, or the whole body replaced by another JSON value.
 */
export function mutatedObject(input: JsonSchema, known: KnownValues = {}): fc.Arbitrary<unknown> {
  const schema = resolveRef(input) ?? {};
  const properties: Record<string, JsonSchema> = schema.properties ?? {};
  const names = Object.keys(properties);
  const base = validValue(schema, known);
  const variants: fc.Arbitrary<unknown>[] = [
    base.chain((body) =>
      fc
        .tuple(
          fc.oneof(
            fc.constantFrom('unknown_field', 'id', 'business_id', 'version', 'constructor', 'isAdmin'),
            fc.string({ minLength: 1, maxLength: 12 }),
          ),
          fc.jsonValue({ maxDepth: 2 }),
        )
        .map(([key, value]) => (isObject(body) ? { ...body, [key]: value } : body)),
    ),
    fc.jsonValue({ maxDepth: 3 }),
  ];
  if (names.length > 0) {
    variants.push(
      fc
        .tuple(base, fc.constantFrom(...names))
        .chain(([body, name]) =>
          oddValue(properties[name]).map((value) => (isObject(body) ? { ...body, [name]: value } : body)),
        ),
      fc.tuple(base, fc.constantFrom(...names)).map(([body, name]) => {
        if (!isObject(body)) return body;
        const { [name]: _dropped, ...rest } = body;
        return rest;
      }),
    );
  }
  return fc.oneof(...variants);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
