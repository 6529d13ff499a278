import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { routeTable } from '#lib/routes/route-table.ts';
import { buildOpenApiDocument, openApiPath } from '../../infra/openapi.ts';

describe('OpenAPI document', () => {
  it('passes the Redocly linter with its recommended rules', async () => {
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
      const own = route.errorFormat === 'oauth' ? 'OAuthErrorResponse' : 'ErrorResponse';
      expect(operation?.responses['413']?.content?.['application/json']?.schema, route.operationId).toEqual({
        anyOf: [{ $ref: `#/components/schemas/${own}` }, { $ref: '#/components/schemas/GatewayError' }],
      });
    }
  });
});

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
