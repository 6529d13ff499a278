import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { routeTable } from '#lib/routes/route-table.ts';
import { buildOpenApiDocument, openApiPath } from '../../infra/openapi.ts';
import { withParameterExamples } from '../../infra/openapi-guide.ts';

describe('OpenAPI document', () => {
  it('passes the Redocly linter with its recommended rules', { timeout: 30_000 }, async () => {
    const document = buildOpenApiDocument(routeTable, 'http://127.0.0.1:3000');
    const config = await createConfig({ extends: ['recommended'] });

    const problems = await lintFromString({
      source: JSON.stringify(document),
      absoluteRef: 'openapi.json',
      config,
    });

    const errors = problems.filter((problem) => problem.severity === 'error');
    expect(errors.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
  });

  it('describes every route of the route table, once', () => {
    const document = buildOpenApiDocument();
    const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { operationId: string }>).map(([method, op]) => ({
        key: `${method.toUpperCase()} ${path}`,
        operationId: op.operationId,
      })),
    );

    expect(operations.map((op) => op.operationId).sort()).toEqual(
      routeTable.map((route) => route.operationId).sort(),
    );
    for (const route of routeTable) {
      expect(operations).toContainEqual({
        key: `${route.method} ${openApiPath(route.path)}`,
        operationId: route.operationId,
      });
    }
  });

  it('teaches: every area says who calls it with which credential, every operation who may call it and what it changes', () => {
    const document = buildOpenApiDocument();
    const areas = new Set(routeTable.map((route) => route.area));

    expect((document.tags ?? []).map((tag) => tag.name).sort()).toEqual([...areas].sort());
    for (const tag of document.tags ?? [])
      expect(tag.description, tag.name).toMatch(/Credential:|credential/);
    for (const item of Object.values(document.paths ?? {})) {
      for (const operation of Object.values(
        item as Record<string, { operationId: string; description?: string }>,
      )) {
        expect(operation.description, operation.operationId).toContain('**Who:**');
        expect(operation.description, operation.operationId).toContain('**Changes:**');
      }
    }
  });

  it('gives every ErrorResponse example the error code of its status', () => {
    const codes: Record<string, string[]> = {
      '400': ['BAD_REQUEST'],
      '401': ['UNAUTHORIZED'],
      '403': ['FORBIDDEN'],
      '404': ['NOT_FOUND'],
      '409': ['CONFLICT', 'VERSION_CONFLICT'],
      '410': ['GONE'],
      '413': ['PAYLOAD_TOO_LARGE'],
      '415': ['UNSUPPORTED_MEDIA_TYPE'],
      '422': ['VALIDATION_ERROR'],
      '429': ['RATE_LIMITED'],
      '500': ['INTERNAL'],
      '503': ['SERVICE_UNAVAILABLE'],
    };
    const document = buildOpenApiDocument();
    let checked = 0;
    for (const item of Object.values(document.paths ?? {})) {
      // biome-ignore lint/suspicious/noExplicitAny: responses are walked as loose JSON.
      for (const operation of Object.values(item as Record<string, { responses: Record<string, any> }>)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          const example = response.content?.['application/json']?.example;
          if (!example?.error?.code) continue;
          expect(codes[status], `${status} ${example.error.code}`).toContain(example.error.code);
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(routeTable.length);
  });

  it('can carry ready-made ids as path and query parameter examples', () => {
    const businessId = '6f1c1f7e-5b7a-4b8e-9a51-0c2f3d4e5f60';
    const document = withParameterExamples(buildOpenApiDocument(), { business_id: businessId });
    const parameters = Object.values(document.paths ?? {}).flatMap((item) =>
      Object.values(item as Record<string, { parameters?: { name: string; example?: string }[] }>).flatMap(
        (operation) => operation.parameters ?? [],
      ),
    );
    const businessIds = parameters.filter((parameter) => parameter.name === 'business_id');

    expect(businessIds.length).toBeGreaterThan(10);
    for (const parameter of businessIds) expect(parameter.example).toBe(businessId);
  });

  it("documents both bodies of a 413: the operation's own error and API Gateway's {message}", () => {
    const document = buildOpenApiDocument();
    const schemas = document.components?.schemas ?? {};
    expect(schemas.GatewayError).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
      required: ['message'],
    });

    for (const route of routeTable.filter((candidate) => candidate.request.body)) {
      const paths = document.paths as Record<string, Record<string, Operation>>;
      const item = paths[openApiPath(route.path)];
      const operation = item?.[route.method.toLowerCase()];
      const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
      // The tool server's own errors are an ErrorResponse or its transport's JSON-RPC error.
      const own =
        route.auth === 'mcp'
          ? [ref('ErrorResponse'), ref('JsonRpcErrorResponse')]
          : [ref(route.errorFormat === 'oauth' ? 'OAuthErrorResponse' : 'ErrorResponse')];
      expect(operation?.responses['413']?.content?.['application/json']?.schema, route.operationId).toEqual({
        anyOf: [...own, ref('GatewayError')],
      });
    }
  });
});

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
