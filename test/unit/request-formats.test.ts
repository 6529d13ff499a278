import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RouteDefinition } from '#lib/http/route.ts';
import { ENTITY_NAMES } from '#lib/records/entities.ts';
import { schemasOf } from '#lib/records/schemas.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import type * as zt from '#lib/validation/zod.ts';
import { buildOpenApiDocument, openApiPath } from '../../infra/openapi.ts';

/**
 * Every format-bearing field a request may carry is validated at least as
 * strictly as the `format` the OpenAPI document gives it, so nothing stored can make a later
 * response break its own schema. The reference is ajv-formats, what a client's validator uses.
 */
interface FormatField {
  where: string;
  /** The JSON Schema format OpenAPI documents for it. */
  format: string;
  schema: zt.ZodType;
}

const JSON_SCHEMA_FORMAT: Record<string, string> = {
  url: 'uri',
  email: 'email',
  uuid: 'uuid',
  datetime: 'date-time',
  date: 'date',
  time: 'time',
};

type Def = {
  type: string;
  format?: string;
  shape?: Record<string, zt.ZodType>;
  innerType?: zt.ZodType;
  element?: zt.ZodType;
  options?: zt.ZodType[];
  in?: zt.ZodType;
  valueType?: zt.ZodType;
};
const defOf = (schema: zt.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Every string-format leaf of a zod schema, with where it sits. */
function formatFields(schema: zt.ZodType, where: string, out: FormatField[] = []): FormatField[] {
  const def = defOf(schema);
  if (def.type === 'string' && def.format) {
    const format = JSON_SCHEMA_FORMAT[def.format];
    if (!format) throw new Error(`${where}: no JSON Schema format known for zod format ${def.format}`);
    out.push({ where, format, schema });
  }
  if (def.shape)
    for (const [name, child] of Object.entries(def.shape)) formatFields(child, `${where}.${name}`, out);
  if (def.innerType) formatFields(def.innerType, where, out);
  if (def.element) formatFields(def.element, `${where}[]`, out);
  if (def.valueType) formatFields(def.valueType, `${where}.*`, out);
  if (def.in) formatFields(def.in, where, out);
  for (const option of def.options ?? []) formatFields(option, where, out);
  return out;
}

function requestFields(route: RouteDefinition): FormatField[] {
  const fields: FormatField[] = [];
  for (const [part, schema] of Object.entries(route.request)) {
    if (schema) formatFields(schema as zt.ZodType, `${route.operationId} ${part}`, fields);
  }
  return fields;
}

/** Every format-bearing field of every request: the route schemas, and the record schemas the
 * edits API checks a changeset item's `fields` against. */
const fields: FormatField[] = [
  ...routeTable.flatMap(requestFields),
  ...ENTITY_NAMES.flatMap((entity) => [
    ...formatFields(schemasOf(entity).write, `${entity} write`),
    ...formatFields(schemasOf(entity).patch, `${entity} patch`),
  ]),
];

// ajv-formats is CommonJS: its function is the default export's `default`.
const addFormats = addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv };
const ajv = addFormats.default(new Ajv({ strict: false }));
const documented = (format: string) => ajv.compile({ type: 'string', format });

const HOSTILE: Record<string, string[]> = {
  uri: [
    'https://example.com/a b',
    'https://example.com/<script>',
    'https://example.com/"x"',
    'https://example.com/{x}',
    'https://example.com/a|b',
    'https://example.com/a\\b',
    'https://example.com/a^b',
    'https://example.com/a`b',
    'https://example.com/[x]',
    'https://example.com/%zz',
    'https://example.com/#a#b',
    'https://example.com/ä',
    'https://exa mple.com/',
    'https://user:secret@example.com/',
    'https://example.com:0/',
    'https://example.com:65536/',
    'https://localhost/',
    'https://-example.com/',
    'javascript:alert(1)',
    'data:text/html,<b>x</b>',
    'ftp://example.com/',
    'mailto:jobs@example.com',
    '//example.com/',
    'example.com',
    '',
  ],
  email: [
    'a@b-.com',
    'a@-b.com',
    'a b@example.com',
    '<a>@example.com',
    '"a"@example.com',
    'a..b@example.com',
    '.a@example.com',
    'a@example',
    'a@example.com\n',
    'a@@example.com',
    '',
  ],
  'date-time': [
    '2024-01-01T00:00Z',
    '2024-02-30T00:00:00Z',
    '2024-01-01 00:00:00Z',
    '2024-01-01T00:00:00',
    '2024-01-01T25:00:00Z',
    '2024-01-01',
    'yesterday',
    '',
  ],
  uuid: [
    'not-a-uuid',
    '{3f2504e0-4f89-41d3-9a0c-0305e82c3301}',
    '3f2504e04f8941d39a0c0305e82c3301',
    '3f2504e0-4f89-41d3-9a0c-0305e82c330',
    '3f2504e0-4f89-41d3-9a0c-0305e82c3301 ',
    'urn:uuid:3f2504e0-4f89-41d3-9a0c-0305e82c3301',
    '',
  ],
};

const VALID: Record<string, string[]> = {
  uri: [
    'https://example.com/jobs?id=1&x=a%20b#apply',
    'http://shop.example.co.uk:8080/a/b;c=d',
    'HTTPS://Example.com',
  ],
  email: ['jobs@example.com', "o'brien+jobs@mail.example.co.uk"],
  'date-time': ['2024-02-29T23:59:59Z', '2024-01-01T00:00:00.123+01:00'],
  uuid: ['3f2504e0-4f89-41d3-9a0c-0305e82c3301', '3F2504E0-4F89-41D3-9A0C-0305E82C3301'],
};

/** Characters that break formats, inserted into valid values by the property test. */
const BREAKERS = [
  ' ',
  '<',
  '>',
  '"',
  '{',
  '}',
  '|',
  '\\',
  '^',
  '`',
  '[',
  ']',
  '%',
  '#',
  '@',
  ':',
  'ä',
  '\n',
  '-',
  '.',
  '/',
];

const near = (valid: fc.Arbitrary<string>) =>
  fc.oneof(
    valid,
    fc
      .tuple(valid, fc.nat(), fc.constantFrom(...BREAKERS))
      .map(
        ([value, at, breaker]) =>
          value.slice(0, at % (value.length + 1)) + breaker + value.slice(at % (value.length + 1)),
      ),
    fc.tuple(valid, fc.nat()).map(([value, at]) => value.slice(0, at % (value.length + 1))),
  );

const ARBITRARIES: Record<string, fc.Arbitrary<string>> = {
  uri: near(fc.webUrl({ withQueryParameters: true, withFragments: true })),
  email: near(fc.emailAddress()),
  'date-time': near(
    fc
      .date({ noInvalidDate: true, min: new Date('0001-01-01'), max: new Date('9999-12-31') })
      .map((d) => d.toISOString()),
  ),
  uuid: near(fc.uuid().chain((id) => fc.constantFrom(id, id.toUpperCase()))),
};

describe('format-bearing request fields', () => {
  it('are found wherever the OpenAPI document declares a format on a request, operation by operation', () => {
    const document = buildOpenApiDocument(routeTable);
    const schemas = (document.components?.schemas ?? {}) as Record<string, unknown>;
    /** Formats declared under a node, following $refs (a ref met again on the same branch stops). */
    const declared = (node: unknown, out: string[], branch: string[] = []): string[] => {
      if (!node || typeof node !== 'object') return out;
      const value = node as Record<string, unknown>;
      if (typeof value.$ref === 'string') {
        const name = value.$ref.split('/').pop() as string;
        if (!branch.includes(name)) declared(schemas[name], out, [...branch, name]);
      }
      if (typeof value.format === 'string' && value.format !== 'binary') out.push(value.format);
      for (const [key, child] of Object.entries(value)) if (key !== '$ref') declared(child, out, branch);
      return out;
    };
    const tally = (formats: string[]) =>
      Object.fromEntries([...new Set(formats)].sort().map((f) => [f, formats.filter((x) => x === f).length]));

    for (const route of routeTable) {
      const paths = document.paths as Record<string, Record<string, Record<string, unknown>>>;
      const operation = paths[openApiPath(route.path)]?.[route.method.toLowerCase()] ?? {};
      const inDocument = declared(operation.requestBody, declared(operation.parameters, []));
      const inSchemas = requestFields(route).map((field) => field.format);
      expect(tally(inSchemas), route.operationId).toEqual(tally(inDocument));
    }
    expect(fields.filter((field) => field.format === 'uri').map((field) => field.where)).toEqual(
      expect.arrayContaining(['createJobPosting body.apply_url', 'profile patch.website_url']),
    );
  });

  it.each(fields.map((field) => [field.where, field]))(
    '%s refuses what its format refuses',
    (_where, field) => {
      const hostile = HOSTILE[field.format] ?? [];
      expect(hostile.length, `hostile values for ${field.format}`).toBeGreaterThan(0);
      for (const value of hostile) {
        expect(field.schema.safeParse(value).success, JSON.stringify(value)).toBe(false);
      }
      if (field.format === 'uri') {
        // zod's url() trims surrounding whitespace: what is stored is the link itself.
        expect(field.schema.safeParse(' https://example.com/a\n').data).toBe('https://example.com/a');
      }
      for (const value of VALID[field.format] ?? []) {
        const parsed = field.schema.safeParse(value);
        expect(parsed.success, JSON.stringify(value)).toBe(true);
        expect(documented(field.format)(parsed.data), JSON.stringify(parsed.data)).toBe(true);
      }
    },
  );

  it.each(Object.keys(ARBITRARIES).map((format) => [format]))(
    'whatever a %s field accepts, the documented format accepts too (lower-case for UUIDs)',
    (format) => {
      const sample = fields.filter((field) => field.format === format);
      expect(sample.length).toBeGreaterThan(0);
      const arbitrary = ARBITRARIES[format] as fc.Arbitrary<string>;
      const check = documented(format);
      fc.assert(
        fc.property(arbitrary, (value) => {
          for (const field of sample) {
            const parsed = field.schema.safeParse(value);
            if (!parsed.success) continue;
            if (!check(parsed.data)) return false;
            if (format === 'uuid' && parsed.data !== (parsed.data as string).toLowerCase()) return false;
          }
          return true;
        }),
        { seed: 11, numRuns: 2000 },
      );
    },
  );
});
