import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { handleMcpRequest } from '#lib/mcp/tool-server.ts';
import { type ToolDefinition, tools } from '#lib/mcp/tools.ts';
import { ENTITY_NAMES, type EntityName, entities } from '#lib/records/entities.ts';
import { mcpRoutes } from '#lib/routes/mcp.ts';
import { testAssistant } from '../support/assistant-principal.ts';
import { useBundleFilesTaskRoot } from '../support/bundle-files-task-root.ts';
import { invalidBody, validBody } from '../support/record-arbitraries.ts';

// The tools' modules read the table name at load (their DynamoDB client); nothing here calls it.
vi.hoisted(() => {
  process.env.TABLE_NAME ??= 'unit-test-table';
});

// propose_changes as an assistant's client sees it: the input schema of the tools/list answer,
// compiled by ajv (JSON Schema 2020-12, ajv-formats for uuid, email, uri, date-time), next to the
// zod schema the tool validates its arguments with before staging.

// ajv-formats is CommonJS; under ESM its function is the default export's `default`.
const addFormats = addFormatsModule as unknown as { default: (ajv: Ajv2020) => Ajv2020 };
const principal = testAssistant;
const SESSION = '5e551011-0000-4000-8000-000000000001';
const RECORD = 'fa000000-0000-4000-8000-000000000002';

const propose = (tools as ToolDefinition[]).find((tool) => tool.name === 'propose_changes');
const serviceAccepts = (args: unknown) => propose?.input().safeParse(args).success;

useBundleFilesTaskRoot(mcpRoutes.handleMcp.handler);

let clientCheck: ((args: unknown) => boolean) & { errors?: ErrorObject[] | null };
let published: { $schema: string; $defs: Record<string, unknown> };
let listBytes: number;

beforeAll(async () => {
  vi.stubEnv('OAUTH_ISSUER', 'https://api.example.com');
  const response = await handleMcpRequest(
    principal,
    {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': '2025-11-25',
    },
    { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  );
  listBytes = Buffer.byteLength(response.body);
  const listed = JSON.parse(response.body).result.tools as { name: string; inputSchema: object }[];
  published = listed.find((tool) => tool.name === 'propose_changes')?.inputSchema as typeof published;
  // ajv's strict mode (no unknown or ignored keywords) except strictTypes, which wants `type`
  // beside `minProperties` even where the `$ref` beside it says "object".
  clientCheck = addFormats.default(new Ajv2020({ strictTypes: false, allErrors: true })).compile(published);
});

const items = (...list: object[]) => ({ session_id: SESSION, items: list });
/** A one-field update of each entity, from its example create body. */
const someChange = (entity: EntityName) => {
  const [field, value] = Object.entries(entities[entity].example)[0] as [string, unknown];
  return { [field]: value };
};
const recordEntities = ENTITY_NAMES.filter((entity) => entity !== 'profile');

describe('the published propose_changes input schema', () => {
  it('is JSON Schema 2020-12 with each entity’s create and update fields defined once', () => {
    expect(published.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(Object.keys(published.$defs).sort()).toEqual(
      [
        'ProfilePatch',
        'RecordId',
        ...recordEntities.flatMap((entity) => {
          const name = entity.replace(/(^|_)(\w)/g, (_m, _u, c: string) => c.toUpperCase());
          return [`${name}Write`, `${name}Patch`];
        }),
      ].sort(),
    );
    // Every field object is referenced, never inlined a second time.
    const text = JSON.stringify(published);
    for (const name of Object.keys(published.$defs)) expect(text).toContain(`"$ref":"#/$defs/${name}"`);
    console.info(`tools/list answer: ${listBytes} bytes; propose_changes inputSchema: ${text.length} bytes`);
  });

  it.each([
    ...recordEntities.flatMap((entity) => [
      [`${entity} create`, { entity, action: 'create', fields: entities[entity].example }],
      [`${entity} update`, { entity, action: 'update', record_id: RECORD, fields: someChange(entity) }],
      [`${entity} delete`, { entity, action: 'delete', record_id: RECORD }],
    ]),
    [
      'profile update',
      { entity: 'profile', action: 'update', record_id: 'profile', fields: { tagline: 'x' } },
    ],
    ['profile update without record_id', { entity: 'profile', action: 'update', fields: { name: 'N' } }],
    [
      'an update that clears optional fields with null',
      { entity: 'team_member', action: 'update', record_id: RECORD, fields: { bio: null, photo_id: null } },
    ],
    [
      'an update of part of a nested object',
      { entity: 'location', action: 'update', record_id: RECORD, fields: { address: { line2: null } } },
    ],
  ] as [string, object][])('accepts a correct %s, in the client and in the service', (_name, item) => {
    expect(clientCheck(items(item)), JSON.stringify(clientCheck.errors)).toBe(true);
    expect(serviceAccepts(items(item))).toBe(true);
  });

  it.each([
    [
      'a misspelt field',
      { entity: 'faq', action: 'create', fields: { questoin: 'Q?', answer: 'A.' } },
      'additionalProperties',
    ],
    [
      'a wrong enum value',
      { entity: 'job_posting', action: 'update', record_id: RECORD, fields: { employment_type: 'fulltime' } },
      'enum',
    ],
    [
      'a too long string',
      { entity: 'faq', action: 'update', record_id: RECORD, fields: { answer: 'a'.repeat(5001) } },
      'maxLength',
    ],
    ['a profile create', { entity: 'profile', action: 'create', fields: { name: 'N' } }, 'const'],
    ['a profile delete', { entity: 'profile', action: 'delete', record_id: 'profile' }, 'const'],
    [
      'a create missing a required field',
      { entity: 'faq', action: 'create', fields: { question: 'Q?' } },
      'required',
    ],
    [
      'an unknown property of an item',
      { entity: 'faq', action: 'delete', record_id: RECORD, note: 'x' },
      'additionalProperties',
    ],
    [
      'fields on a delete',
      { entity: 'faq', action: 'delete', record_id: RECORD, fields: { question: 'Q?' } },
      'additionalProperties',
    ],
    [
      'a record_id on a create',
      { entity: 'service', action: 'create', record_id: RECORD, fields: { name: 'S' } },
      'additionalProperties',
    ],
    [
      'an update without record_id',
      { entity: 'faq', action: 'update', fields: { question: 'Q?' } },
      'required',
    ],
    [
      'an update of no field',
      { entity: 'faq', action: 'update', record_id: RECORD, fields: {} },
      'minProperties',
    ],
    [
      'null on a required field',
      { entity: 'faq', action: 'update', record_id: RECORD, fields: { question: null } },
      'type',
    ],
    [
      'an address without its country',
      { entity: 'location', action: 'create', fields: { name: 'L', address: { line1: 'A 1', city: 'B' } } },
      'required',
    ],
    ['an unknown entity', { entity: 'faqs', action: 'delete', record_id: RECORD }, 'const'],
    ['a malformed record_id', { entity: 'faq', action: 'delete', record_id: 'faq-1' }, 'format'],
  ] as [string, object, string][])(
    'refuses %s in the client schema, and the service does too',
    (_name, item, keyword) => {
      expect(clientCheck(items(item))).toBe(false);
      expect(clientCheck.errors?.map((error) => error.keyword)).toContain(keyword);
      expect(serviceAccepts(items(item))).toBe(false);
    },
  );

  it('refuses no items and over 100, as the service does', () => {
    const one = { entity: 'faq', action: 'delete', record_id: RECORD };
    for (const args of [items(), items(...Array.from({ length: 101 }, () => one))]) {
      expect(clientCheck(args)).toBe(false);
      expect(serviceAccepts(args)).toBe(false);
    }
  });

  it.each(ENTITY_NAMES)('agrees with the service on generated %s fields, valid and invalid', (entity) => {
    const agree = (item: object) => {
      const client = clientCheck(items(item));
      expect(
        serviceAccepts(items(item)),
        `${JSON.stringify(item)}: ${JSON.stringify(clientCheck.errors)}`,
      ).toBe(client);
      return client;
    };
    const asItems = (fields: Record<string, unknown>) => [
      ...(entity === 'profile' ? [] : [{ entity, action: 'create', fields }]),
      entity === 'profile'
        ? { entity, action: 'update', fields }
        : { entity, action: 'update', record_id: RECORD, fields },
    ];
    fc.assert(
      fc.property(validBody(entity), (fields) => {
        for (const item of asItems(fields)) expect(agree(item)).toBe(true);
      }),
      { numRuns: 50 },
    );
    fc.assert(
      fc.property(invalidBody(entity), (fields) => {
        const [first] = asItems(fields);
        if (entity !== 'profile') expect(agree(first as object)).toBe(false);
        for (const item of asItems(fields)) agree(item);
      }),
      { numRuns: 50 },
    );
  });
});
