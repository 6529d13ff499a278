import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { agentEntities, type EntityName } from '#lib/records/entities.ts';
import {
  type AgentTenant,
  agentApi,
  arrangeAgentTenant,
  collectionPath,
  createRecordVia,
  itemPath,
  limitedFields,
  minimalBodies,
} from '../support/agents.ts';

type Kind = Exclude<EntityName, 'profile'>;

describe.each(agentEntities.map((definition) => [definition.name as Kind, definition] as const))(
  'agent API: %s',
  (entity, definition) => {
    let tenant: AgentTenant;
    const body = minimalBodies[entity];

    /** Every operation of this kind on one record, with a body where it takes one. */
    function operations(
      businessId: string,
      id: string,
    ): [string, string, object | undefined, 'read' | 'write'][] {
      const ops: [string, string, object | undefined, 'read' | 'write'][] = [
        ['GET', collectionPath(businessId, entity), undefined, 'read'],
        ['POST', collectionPath(businessId, entity), body, 'write'],
        ['GET', itemPath(businessId, entity, id), undefined, 'read'],
        ['PUT', itemPath(businessId, entity, id), body, 'write'],
        ['PATCH', itemPath(businessId, entity, id), {}, 'write'],
        ['DELETE', itemPath(businessId, entity, id), undefined, 'write'],
      ];
      if (definition.members) {
        const path = `${itemPath(businessId, entity, id)}/${definition.members.segment}`;
        ops.push(
          ['PUT', path, { [definition.members.field]: [] }, 'write'],
          ['GET', path, undefined, 'read'],
        );
      }
      return ops;
    }

    beforeEach(async () => {
      tenant = await arrangeAgentTenant();
    });

    it('creates (201), reads, lists, replaces, patches and deletes, counting versions', async () => {
      const created = await agentApi('POST', collectionPath(tenant.businessId, entity), tenant.key, {
        json: body,
      });
      expect(created.status).toBe(201);
      expect(created.headers.get('etag')).toBe('"1"');
      const record = created.body.data;
      expect(record).toMatchObject({ ...body, business_id: tenant.businessId, version: 1 });
      expect(record.updated_by).toMatchObject({ type: 'agent' });

      const read = await agentApi('GET', itemPath(tenant.businessId, entity, record.id), tenant.readOnlyKey);
      expect(read.status).toBe(200);
      expect(read.body.data).toEqual(record);

      const list = await agentApi('GET', collectionPath(tenant.businessId, entity), tenant.readOnlyKey);
      expect(list.status).toBe(200);
      expect(list.body.data).toEqual([record]);
      expect(list.body.meta).toHaveProperty('next_cursor');

      const replaced = await agentApi('PUT', itemPath(tenant.businessId, entity, record.id), tenant.key, {
        json: body,
      });
      expect(replaced.status).toBe(200);
      expect(replaced.body.data.version).toBe(2);

      const [field, limit] = limitedFields[entity];
      const patched = await agentApi('PATCH', itemPath(tenant.businessId, entity, record.id), tenant.key, {
        json: { [field]: 'x'.repeat(limit) },
        headers: { 'if-match': '"2"' },
      });
      expect(patched.status).toBe(200);
      expect(patched.body.data).toMatchObject({ [field]: 'x'.repeat(limit), version: 3 });
      expect(patched.headers.get('etag')).toBe('"3"');

      const deleted = await agentApi('DELETE', itemPath(tenant.businessId, entity, record.id), tenant.key);
      expect(deleted.status).toBe(204);
      expect((await agentApi('GET', itemPath(tenant.businessId, entity, record.id), tenant.key)).status).toBe(
        404,
      );
      expect(
        (await agentApi('GET', collectionPath(tenant.businessId, entity), tenant.key)).body.data,
      ).toEqual([]);
    });

    it('answers 401 without a key, with an unknown key and with a console token', async () => {
      const record = await createRecordVia(tenant, entity);
      for (const credential of [undefined, 'agk_not-a-real-key', 'eyJhbGciOiJFUzI1NiJ9.e30.sig']) {
        for (const [method, path, json] of operations(tenant.businessId, record.id)) {
          const response = await agentApi(method, path, credential, { json });
          expect(response.status, `${method} ${path}`).toBe(401);
          expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
        }
      }
    });

    it("answers 403 to another tenant's key on every operation, and leaves the record alone", async () => {
      const record = await createRecordVia(tenant, entity);
      for (const [method, path, json] of operations(tenant.businessId, record.id)) {
        const response = await agentApi(method, path, tenant.other.key, { json });
        expect(response.status, `${method} ${path}`).toBe(403);
      }
      const after = await agentApi('GET', itemPath(tenant.businessId, entity, record.id), tenant.key);
      expect(after.body.data).toEqual(record);
    });

    it('lets a read-only key read but not write (403)', async () => {
      const record = await createRecordVia(tenant, entity);
      for (const [method, path, json, scope] of operations(tenant.businessId, record.id)) {
        const response = await agentApi(method, path, tenant.readOnlyKey, { json });
        expect(response.status, `${method} ${path}`).toBe(scope === 'read' ? 200 : 403);
      }
      expect(
        (await agentApi('GET', itemPath(tenant.businessId, entity, record.id), tenant.key)).body.data,
      ).toEqual(record);
    });

    it('answers 404 for an unknown id, and for an id that exists in another business', async () => {
      const theirs = await createRecordVia(tenant.other, entity);
      for (const id of [randomUUID(), theirs.id]) {
        for (const [method, path, json] of operations(tenant.businessId, id).slice(2)) {
          const response = await agentApi(method, path, tenant.key, { json });
          expect(response.status, `${method} ${path}`).toBe(404);
        }
      }
      const still = await agentApi(
        'GET',
        itemPath(tenant.other.businessId, entity, theirs.id),
        tenant.other.key,
      );
      expect(still.body.data).toEqual(theirs);
    });

    it('answers 422 for an unknown field, a wrong type, a too-long value, a missing required field and a bad id', async () => {
      const record = await createRecordVia(tenant, entity);
      const [field, limit] = limitedFields[entity];
      const cases: [string, string, object, string][] = [
        ['POST', collectionPath(tenant.businessId, entity), { ...body, is_admin: true }, 'body.is_admin'],
        ['POST', collectionPath(tenant.businessId, entity), { ...body, [field]: 42 }, `body.${field}`],
        [
          'POST',
          collectionPath(tenant.businessId, entity),
          { ...body, [field]: 'x'.repeat(limit + 1) },
          `body.${field}`,
        ],
        ['POST', collectionPath(tenant.businessId, entity), {}, `body.${field}`],
        ['PUT', itemPath(tenant.businessId, entity, record.id), { ...body, version: 7 }, 'body.version'],
        ['PATCH', itemPath(tenant.businessId, entity, record.id), { [field]: null }, `body.${field}`],
        ['PATCH', itemPath(tenant.businessId, entity, record.id), { id: randomUUID() }, 'body.id'],
      ];
      for (const [method, path, json, location] of cases) {
        const response = await agentApi(method, path, tenant.key, { json });
        expect(response.status, `${method} ${JSON.stringify(json).slice(0, 60)}`).toBe(422);
        const locations = response.body.error.details.map((issue: { loc: string[] }) => issue.loc.join('.'));
        expect(locations).toContain(location);
      }
      const badId = await agentApi('GET', itemPath(tenant.businessId, entity, 'not-a-uuid'), tenant.key);
      expect(badId.status).toBe(422);
      const badLimit = await agentApi(
        'GET',
        `${collectionPath(tenant.businessId, entity)}?limit=501`,
        tenant.key,
      );
      expect(badLimit.status).toBe(422);
      expect(
        (await agentApi('GET', itemPath(tenant.businessId, entity, record.id), tenant.key)).body.data,
      ).toEqual(record);
    });

    it('answers 409 VERSION_CONFLICT with the current version when If-Match is stale', async () => {
      const record = await createRecordVia(tenant, entity);
      await agentApi('PUT', itemPath(tenant.businessId, entity, record.id), tenant.key, { json: body });

      for (const [method, json] of [
        ['PUT', body],
        ['PATCH', {}],
        ['DELETE', undefined],
      ] as const) {
        const response = await agentApi(method, itemPath(tenant.businessId, entity, record.id), tenant.key, {
          json,
          headers: { 'if-match': '"1"' },
        });
        expect(response.status).toBe(409);
        expect(response.body.error).toMatchObject({
          code: 'VERSION_CONFLICT',
          details: { current_version: 2 },
        });
      }
      const badHeader = await agentApi('PATCH', itemPath(tenant.businessId, entity, record.id), tenant.key, {
        json: {},
        headers: { 'if-match': 'yesterday' },
      });
      expect(badHeader.status).toBe(422);
    });
  },
);

describe.each(
  agentEntities.flatMap((definition) =>
    definition.members ? [[definition.name as Kind, definition.members] as const] : [],
  ),
)('agent API: %s members', (entity, members) => {
  let tenant: AgentTenant;
  beforeEach(async () => {
    tenant = await arrangeAgentTenant();
  });

  it('sets and lists members in order, refusing foreign or repeated ids, guarding deletes', async () => {
    const record = await createRecordVia(tenant, entity);
    const a = await createRecordVia(tenant, members.entity);
    const b = await createRecordVia(tenant, members.entity);
    const path = `${itemPath(tenant.businessId, entity, record.id)}/${members.segment}`;

    const set = await agentApi('PUT', path, tenant.key, { json: { [members.field]: [b.id, a.id] } });
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ [members.field]: [b.id, a.id], version: 2 });

    const listed = await agentApi('GET', path, tenant.readOnlyKey);
    expect(listed.body.data.map((m: { id: string }) => m.id)).toEqual([b.id, a.id]);

    const theirs = await createRecordVia(tenant.other, members.entity);
    const foreign = await agentApi('PUT', path, tenant.key, {
      json: { [members.field]: [a.id, theirs.id] },
    });
    expect(foreign.status).toBe(422);
    expect(foreign.body.error.details[0].loc).toEqual(['body', members.field, 1]);

    const repeated = await agentApi('PUT', path, tenant.key, { json: { [members.field]: [a.id, a.id] } });
    expect(repeated.status).toBe(422);

    const refused = await agentApi('DELETE', itemPath(tenant.businessId, members.entity, a.id), tenant.key);
    expect(refused.status).toBe(409);
    expect(refused.body.error.details.referrers).toEqual([
      { entity, record_id: record.id, field: members.field },
    ]);

    await agentApi('PUT', path, tenant.key, { json: { [members.field]: [b.id] } });
    expect(
      (await agentApi('DELETE', itemPath(tenant.businessId, members.entity, a.id), tenant.key)).status,
    ).toBe(204);
  });
});
