import { unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { keys } from '#lib/db/keys.ts';
import { tableDefinition } from '#lib/db/table.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { editsRoutes } from '#lib/routes/edits.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { buildOpenApiDocument } from '../../infra/openapi.ts';

// The Idempotency-Key plumbing without a database: where Powertools puts its records, which routes
// take the header, and what the OpenAPI document says about it.

describe('Idempotency-Key', () => {
  it("puts Powertools' records in the table's key scheme: one partition per key", async () => {
    process.env.TABLE_NAME ??= 'unit-test-table';
    const { idempotencyStore } = await import('#lib/http/idempotency/response-store.ts');
    // getKey is protected: the key Powertools builds for a record, read as it will write it.
    const store = idempotencyStore() as unknown as {
      getKey(key: string): Parameters<typeof unmarshall>[0];
      expiryAttr: string;
    };
    expect(unmarshall(store.getKey('IDEMPOTENCY#c2hhMjU2'))).toEqual(keys.idempotency('c2hhMjU2'));
    expect(keys.idempotency('c2hhMjU2')).toEqual({ pk: 'IDEMPOTENCY#c2hhMjU2', sk: 'IDEMPOTENCY' });
    expect(store.expiryAttr).toBe(tableDefinition.timeToLiveAttribute);
  });

  it('is wired exactly where the route table says (the handler passes it, or loading fails)', async () => {
    const stubAuth = { kind: 'edits' as const, prepare() {}, authenticate: async () => ({}) };
    expect(() => httpHandler(editsRoutes.openEditSession, stubAuth, async () => undefined)).toThrow(
      /withIdempotencyKey/,
    );
    process.env.TABLE_NAME ??= 'unit-test-table';
    const { withIdempotencyKey } = await import('#lib/http/idempotency/response-store.ts');
    expect(() =>
      httpHandler(editsRoutes.getEditSession, stubAuth, async () => undefined, {
        idempotency: withIdempotencyKey,
      }),
    ).toThrow(/withIdempotencyKey/);
  });

  it('is documented on every idempotent operation: the header, and 409 while the first runs', () => {
    const document = buildOpenApiDocument();
    for (const route of routeTable) {
      const operation = document.paths?.[route.path]?.[route.method.toLowerCase() as 'post'];
      const header = operation?.parameters?.find(
        (parameter) => 'name' in parameter && parameter.name === 'idempotency-key',
      );
      if (!route.idempotent) {
        expect(header, route.operationId).toBeUndefined();
        continue;
      }
      expect(header, route.operationId).toMatchObject({ in: 'header', required: false });
      expect(operation?.responses?.['409'], route.operationId).toBeDefined();
      expect(operation?.responses?.['422'], route.operationId).toBeDefined();
    }
    expect(routeTable.filter((route) => route.idempotent)).toHaveLength(10);
  });
});
