import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agentEntities, type EntityName } from '#lib/records/entities.ts';
import { agentApi, arrangeAgentTenant, collectionPath, itemPath } from '../support/agents.ts';
import { invalidBody, validBody } from '../support/record-arbitraries.ts';

const RUNS = 15;

describe.each(agentEntities.map((definition) => [definition.name as EntityName] as const))(
  'records: properties of %s',
  (entity) => {
    it('round-trips any valid body: create then get returns what was sent plus server fields', async () => {
      const tenant = await arrangeAgentTenant();
      await fc.assert(
        fc.asyncProperty(validBody(entity), async (body) => {
          const created = await agentApi('POST', collectionPath(tenant.businessId, entity), tenant.key, {
            json: body,
          });
          expect(created.status, JSON.stringify(created.body)).toBe(201);
          const read = await agentApi(
            'GET',
            itemPath(tenant.businessId, entity, created.body.data.id),
            tenant.key,
          );
          expect(read.body.data).toMatchObject(body);
          expect(read.body.data).toMatchObject({ business_id: tenant.businessId, version: 1 });
          await agentApi('DELETE', itemPath(tenant.businessId, entity, created.body.data.id), tenant.key);
        }),
        { numRuns: RUNS },
      );
    }, 120_000);

    it('answers any invalid body with 422 and stores nothing', async () => {
      const tenant = await arrangeAgentTenant();
      await fc.assert(
        fc.asyncProperty(invalidBody(entity), async (body) => {
          const response = await agentApi('POST', collectionPath(tenant.businessId, entity), tenant.key, {
            json: body,
          });
          expect(response.status, JSON.stringify(body).slice(0, 200)).toBe(422);
        }),
        { numRuns: RUNS },
      );
      const list = await agentApi('GET', collectionPath(tenant.businessId, entity), tenant.key);
      expect(list.body.data).toEqual([]);
    }, 120_000);

    it('never answers 500 to arbitrary JSON', async () => {
      const tenant = await arrangeAgentTenant();
      await fc.assert(
        fc.asyncProperty(fc.jsonValue(), async (body) => {
          const response = await agentApi('POST', collectionPath(tenant.businessId, entity), tenant.key, {
            raw: JSON.stringify(body),
            headers: { 'content-type': 'application/json' },
          });
          expect([201, 422]).toContain(response.status);
        }),
        { numRuns: RUNS },
      );
    }, 120_000);
  },
);
