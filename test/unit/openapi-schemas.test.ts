import { describe, expect, it } from 'vitest';
import * as z from '#lib/validation/zod.ts';
import { DocumentSchemas } from '../../infra/openapi-schemas.ts';

/** What the document's schemas add to z.toJSONSchema, each on a small schema of its own. */
describe('the OpenAPI document schemas', () => {
  it('makes a schema with an id one component that every use references, and inlines the rest', () => {
    const Thing = z.meta(z.object({ name: z.string() }), { id: 'Thing', description: 'A thing' });
    const Body = z.object({ thing: Thing, things: z.array(Thing) });
    const schemas = new DocumentSchemas();

    const body = schemas.schema(Body, 'input');
    const direct = schemas.schema(Thing, 'output');
    const components = schemas.finish();

    expect(direct).toEqual({ $ref: '#/components/schemas/Thing' });
    expect(body).toMatchObject({
      properties: {
        thing: { $ref: '#/components/schemas/Thing' },
        things: { type: 'array', items: { $ref: '#/components/schemas/Thing' } },
      },
    });
    expect(components).toEqual({
      Thing: {
        type: 'object',
        properties: { name: { type: 'string' } },
        required: ['name'],
        description: 'A thing',
      },
    });
  });

  it('refuses unknown keys only where the schema does: a strict object, not a plain one', () => {
    const schemas = new DocumentSchemas();
    const plain = schemas.schema(z.object({ a: z.string() }), 'output');
    const strict = schemas.schema(z.strictObject({ a: z.string() }), 'output');
    schemas.finish();

    expect(plain).not.toHaveProperty('additionalProperties');
    expect(strict).toHaveProperty('additionalProperties', false);
  });

  it("says a string format by its name, keeps a pattern of the schema's own, and drops zod's safe-integer range", () => {
    const schemas = new DocumentSchemas();
    const json = schemas.schema(
      z.object({
        id: z.uuid(),
        code: z.string().check(z.regex(/^[A-Z]{3}$/)),
        count: z.int(),
        position: z.int().check(z.gte(0), z.lte(1000)),
      }),
      'output',
    );
    schemas.finish();

    expect(json.properties).toEqual({
      id: { type: 'string', format: 'uuid' },
      code: { type: 'string', pattern: '^[A-Z]{3}$' },
      count: { type: 'integer' },
      position: { type: 'integer', minimum: 0, maximum: 1000 },
    });
  });

  it('makes parameters of the properties of path, query and header objects, with required and description', () => {
    const schemas = new DocumentSchemas();
    const parameters = schemas.parameters([
      [z.object({ business_id: z.meta(z.uuid(), { description: 'The business' }) }), 'path'],
      [z.object({ limit: z.optional(z.string()), q: z.string() }), 'query'],
    ]);
    schemas.finish();

    expect(parameters).toEqual([
      {
        name: 'business_id',
        in: 'path',
        required: true,
        description: 'The business',
        schema: { type: 'string', format: 'uuid', description: 'The business' },
      },
      { name: 'limit', in: 'query', required: false, schema: { type: 'string' } },
      { name: 'q', in: 'query', required: true, schema: { type: 'string' } },
    ]);
  });

  it('refuses a component that reads differently as a request and as a response', () => {
    const Settings = z.meta(z.object({ enabled: z._default(z.boolean(), false) }), { id: 'Settings' });
    const schemas = new DocumentSchemas();
    schemas.schema(Settings, 'input');
    schemas.schema(Settings, 'output');

    expect(() => schemas.finish()).toThrow(
      'schema Settings reads differently as a request and as a response',
    );
  });
});
