import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { createAgentKey } from '#lib/auth/agent-keys.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import {
  type AgentTenant,
  agentApi,
  arrangeAgentTenant,
  collectionPath,
  createRecordVia,
  historyOf,
  itemPath,
} from '../support/agents.ts';

describe('records: domain rules', () => {
  let tenant: AgentTenant;
  beforeEach(async () => {
    tenant = await arrangeAgentTenant();
  });

  it('keeps at most one primary location, clearing the old one in the same write', async () => {
    const first = await createRecordVia(tenant, 'location', { name: 'First', is_primary: true });
    const second = await createRecordVia(tenant, 'location', { name: 'Second', is_primary: true });

    const firstNow = (await agentApi('GET', itemPath(tenant.businessId, 'location', first.id), tenant.key))
      .body.data;
    expect(firstNow).toMatchObject({ is_primary: false, version: 2 });
    expect(second.is_primary).toBe(true);
    const cleared = (await historyOf(tenant.businessId, first.id)).at(-1);
    expect(cleared).toMatchObject({
      action: 'update',
      before: { is_primary: true },
      after: { is_primary: false },
    });

    await agentApi('PATCH', itemPath(tenant.businessId, 'location', first.id), tenant.key, {
      json: { is_primary: true },
    });
    const list = (await agentApi('GET', collectionPath(tenant.businessId, 'location'), tenant.key)).body.data;
    expect(
      list.filter((l: { is_primary: boolean }) => l.is_primary).map((l: { id: string }) => l.id),
    ).toEqual([first.id]);

    expect(
      (await agentApi('DELETE', itemPath(tenant.businessId, 'location', first.id), tenant.key)).status,
    ).toBe(204);
    const third = await createRecordVia(tenant, 'location', { name: 'Third', is_primary: true });
    const after = (await agentApi('GET', collectionPath(tenant.businessId, 'location'), tenant.key)).body
      .data;
    expect(
      after.filter((l: { is_primary: boolean }) => l.is_primary).map((l: { id: string }) => l.id),
    ).toEqual([third.id]);
  });

  it("refuses references to another business's records and to missing photos (422), accepts its own", async () => {
    const theirs = await createRecordVia(tenant.other, 'location');
    const ours = await createRecordVia(tenant, 'location');
    const path = collectionPath(tenant.businessId, 'job_posting');
    const job = { title: 'Baker', description: 'Bread' };

    const foreign = await agentApi('POST', path, tenant.key, { json: { ...job, location_id: theirs.id } });
    expect(foreign.status).toBe(422);
    expect(foreign.body.error.details).toEqual([
      { loc: ['body', 'location_id'], msg: expect.any(String), type: 'reference' },
    ]);
    expect(
      (await agentApi('POST', path, tenant.key, { json: { ...job, location_id: ours.id } })).status,
    ).toBe(201);

    const photoId = randomUUID();
    const teamPath = collectionPath(tenant.businessId, 'team_member');
    const missing = await agentApi('POST', teamPath, tenant.key, {
      json: { first_name: 'Ada', photo_id: photoId },
    });
    expect(missing.status).toBe(422);
    await dynamo.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...keys.photo(tenant.businessId, photoId), id: photoId },
      }),
    );
    expect(
      (await agentApi('POST', teamPath, tenant.key, { json: { first_name: 'Ada', photo_id: photoId } }))
        .status,
    ).toBe(201);
    await dynamo.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...keys.photo(tenant.businessId, photoId),
          id: photoId,
          deleted_at: new Date().toISOString(),
        },
      }),
    );
    expect(
      (await agentApi('POST', teamPath, tenant.key, { json: { first_name: 'Bo', photo_id: photoId } }))
        .status,
    ).toBe(422);
  });

  it('refuses to delete a referenced record (409, listing referrers) until the reference is cleared', async () => {
    const location = await createRecordVia(tenant, 'location');
    const job = await createRecordVia(tenant, 'job_posting', {
      title: 'Baker',
      description: 'Bread',
      location_id: location.id,
    });

    const refused = await agentApi(
      'DELETE',
      itemPath(tenant.businessId, 'location', location.id),
      tenant.key,
    );
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'CONFLICT',
      details: { referrers: [{ entity: 'job_posting', record_id: job.id, field: 'location_id' }] },
    });

    await agentApi('PATCH', itemPath(tenant.businessId, 'job_posting', job.id), tenant.key, {
      json: { location_id: null },
    });
    expect(
      (await agentApi('DELETE', itemPath(tenant.businessId, 'location', location.id), tenant.key)).status,
    ).toBe(204);
  });

  it('lists by position then creation time, unpositioned last, in pages that chain by cursor', async () => {
    const positions = [3, 1, null, 2, 1];
    const created = [];
    for (const position of positions) {
      created.push(await createRecordVia(tenant, 'faq', { question: `Q${position}`, answer: 'A', position }));
    }
    const expected = [created[1], created[4], created[3], created[0], created[2]].map((r) => r?.id);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
      const page = await agentApi('GET', `${collectionPath(tenant.businessId, 'faq')}${query}`, tenant.key);
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((r: { id: string }) => r.id));
      cursor = page.body.meta.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toEqual(expected);

    for (const bad of [
      'not-base64!',
      Buffer.from('["a"]').toString('base64url'),
      Buffer.from('{"pk":"BUSINESS#x"}').toString('base64url'),
    ]) {
      const response = await agentApi(
        'GET',
        `${collectionPath(tenant.businessId, 'faq')}?cursor=${bad}`,
        tenant.key,
      );
      expect(response.status).toBe(422);
      expect(response.body.error.details[0].loc).toEqual(['query', 'cursor']);
    }
  });

  it('allows at most 500 records of one kind per business (409), counting deletes back', async () => {
    const one = await createRecordVia(tenant, 'service');
    await dynamo.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...keys.recordCount(tenant.businessId, 'service'), count: 500 },
      }),
    );
    const refused = await agentApi('POST', collectionPath(tenant.businessId, 'service'), tenant.key, {
      json: { name: 'x' },
    });
    expect(refused.status).toBe(409);

    await agentApi('DELETE', itemPath(tenant.businessId, 'service', one.id), tenant.key);
    expect(
      (
        await agentApi('POST', collectionPath(tenant.businessId, 'service'), tenant.key, {
          json: { name: 'y' },
        })
      ).status,
    ).toBe(201);
  });

  it('refuses numbers DynamoDB cannot store with 422, not a failed write', async () => {
    const location = await agentApi('POST', collectionPath(tenant.businessId, 'location'), tenant.key, {
      json: { name: 'Tiny', latitude: 5e-324 },
    });
    expect(location.status).toBe(422);
    expect(location.body.error.details[0].loc).toEqual(['body', 'latitude']);

    const job = await agentApi('POST', collectionPath(tenant.businessId, 'job_posting'), tenant.key, {
      json: { title: 'T', description: 'D', salary: { min: 1e-200, currency: 'EUR', period: 'hour' } },
    });
    expect(job.status).toBe(422);
  });

  it('answers 404 when the business itself does not exist', async () => {
    const { key } = await createAgentKey({ name: 'everywhere', businesses: '*', scopes: ['read', 'write'] });
    const response = await agentApi('POST', collectionPath(randomUUID(), 'faq'), key, {
      json: { question: 'Q', answer: 'A' },
    });

    expect(response.status).toBe(404);
  });

  it('records every write in the Change History with its before and after, atomically', async () => {
    const faq = await createRecordVia(tenant, 'faq', { question: 'Q1', answer: 'A1' });
    const path = itemPath(tenant.businessId, 'faq', faq.id);
    await agentApi('PATCH', path, tenant.key, { json: { answer: 'A2' } });
    await agentApi('PUT', path, tenant.key, { json: { question: 'Q3', answer: 'A2', position: 4 } });
    await agentApi('DELETE', path, tenant.key);

    const entries = await historyOf(tenant.businessId, faq.id);
    expect(entries.map((entry) => entry.action)).toEqual(['create', 'update', 'update', 'delete']);
    expect(entries[0]).toMatchObject({
      before: null,
      after: { question: 'Q1', answer: 'A1', is_published: true },
    });
    expect(entries[1]).toMatchObject({ before: { answer: 'A1' }, after: { answer: 'A2' } });
    expect(entries[2]).toMatchObject({
      before: { question: 'Q1', position: null },
      after: { question: 'Q3', position: 4 },
    });
    expect(entries[3]).toMatchObject({ before: { question: 'Q3', answer: 'A2' }, after: null });
    for (const entry of entries) {
      expect(entry).toMatchObject({
        business_id: tenant.businessId,
        entity: 'faq',
        record_id: faq.id,
        actor: { type: 'agent' },
      });
    }

    const failed = await agentApi('PATCH', itemPath(tenant.businessId, 'faq', faq.id), tenant.key, {
      json: { answer: 'x' },
    });
    expect(failed.status).toBe(404);
    expect(await historyOf(tenant.businessId, faq.id)).toHaveLength(4);
  });

  it('stays within its DynamoDB budget: get and list 1 call, create 1 transaction, changes 1 read + 1 transaction', async () => {
    const calls = async (method: string, path: string, json?: object) => {
      const response = await agentApi(method, path, tenant.key, { json });
      expect(response.status).toBeLessThan(300);
      return Number(response.headers.get('x-local-dynamodb-calls'));
    };
    const collection = collectionPath(tenant.businessId, 'faq');
    const created = await agentApi('POST', collection, tenant.key, { json: { question: 'Q', answer: 'A' } });
    expect(Number(created.headers.get('x-local-dynamodb-calls'))).toBe(1);
    expect(Number(created.headers.get('x-local-dynamodb-auth-calls'))).toBe(1);
    const item = itemPath(tenant.businessId, 'faq', created.body.data.id);

    expect(await calls('GET', item)).toBe(1);
    expect(await calls('GET', collection)).toBe(1);
    expect(await calls('PATCH', item, { answer: 'B' })).toBe(2);
    expect(await calls('PUT', item, { question: 'Q', answer: 'C' })).toBe(2);
    expect(await calls('DELETE', item)).toBe(2);
  });
});
