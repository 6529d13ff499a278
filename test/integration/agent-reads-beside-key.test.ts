import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAgentKey } from '#lib/auth/agent-keys.ts';
import { revokeAgentKey } from '#lib/auth/revoke-agent-key.ts';
import {
  type AgentTenant,
  agentApi,
  arrangeAgentTenant,
  collectionPath,
  createRecordVia,
  itemPath,
} from '../support/agents.ts';
import type { ApiResponse } from '../support/api.ts';

/**
 * An agent operation's read goes out together with the agent key's lookup (lib/http/early-read.ts):
 * the key and the record cost one round trip, and when the read is of items by key, one call
 * (lib/db/item-reader.ts): a BatchGetItem of the key and the record, which the harness counts as
 * the operation's. A page is a Query, sent beside the key's GetItem: the harness counts it as the
 * operation's call but not as a round trip of its own, since it shared the key lookup's. A refused
 * request answers exactly as before, in the same order (401, then 422, then 403, then 404), and
 * shows nothing read.
 */
describe('agent reads beside the agent key', () => {
  let tenant: AgentTenant;
  const usage = (response: ApiResponse) => ({
    authCalls: Number(response.headers.get('x-local-dynamodb-auth-calls')),
    calls: Number(response.headers.get('x-local-dynamodb-calls')),
    roundTrips: Number(response.headers.get('x-local-dynamodb-round-trips')),
    allRoundTrips: Number(response.headers.get('x-local-dynamodb-all-round-trips')),
  });
  const operations = (response: ApiResponse) => response.headers.get('x-local-dynamodb-operations');

  beforeAll(async () => {
    tenant = await arrangeAgentTenant();
  });

  it('reads a record, a page and a member list in the key lookup’s round trip', async () => {
    const faq = await createRecordVia(tenant, 'faq');
    const pack = await createRecordVia(tenant, 'package');
    const item = await createRecordVia(tenant, 'service_item');
    const membersPath = `${itemPath(tenant.businessId, 'package', pack.id)}/service-items`;
    const set = await agentApi('PUT', membersPath, tenant.key, { json: { service_item_ids: [item.id] } });
    expect(set.status).toBe(200);

    const got = await agentApi('GET', itemPath(tenant.businessId, 'faq', faq.id), tenant.key);
    expect(got.status).toBe(200);
    expect(got.body.data.id).toBe(faq.id);
    expect(got.headers.get('etag')).toBe(`"${faq.version}"`);
    expect(usage(got)).toEqual({ authCalls: 0, calls: 1, roundTrips: 1, allRoundTrips: 1 });
    expect(operations(got)).toBe('BatchGetItem');

    const page = await agentApi('GET', `${collectionPath(tenant.businessId, 'faq')}?limit=1`, tenant.key);
    expect(page.status).toBe(200);
    expect(page.body.data.map((record: { id: string }) => record.id)).toEqual([faq.id]);
    expect(usage(page)).toEqual({ authCalls: 1, calls: 1, roundTrips: 0, allRoundTrips: 1 });

    // The package's own read shares the key's call; its members' read follows it.
    const members = await agentApi('GET', membersPath, tenant.key);
    expect(members.status).toBe(200);
    expect(members.body.data.map((record: { id: string }) => record.id)).toEqual([item.id]);
    expect(usage(members)).toEqual({ authCalls: 0, calls: 2, roundTrips: 2, allRoundTrips: 2 });
    expect(operations(members)).toBe('BatchGetItem,BatchGetItem');
  });

  it('plans a change from a read sent beside the key: one round trip after it, the transaction', async () => {
    const faq = await createRecordVia(tenant, 'faq');
    const path = itemPath(tenant.businessId, 'faq', faq.id);

    const patched = await agentApi('PATCH', path, tenant.key, {
      json: { answer: 'Read beside the key' },
      headers: { 'if-match': `"${faq.version}"` },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ answer: 'Read beside the key', version: faq.version + 1 });
    expect(usage(patched)).toEqual({ authCalls: 0, calls: 2, roundTrips: 2, allRoundTrips: 2 });
    expect(operations(patched)).toBe('BatchGetItem,TransactWriteItems');

    // The read was of the record before the PATCH: an If-Match of that version is now stale.
    const stale = await agentApi('PUT', path, tenant.key, {
      json: { question: 'Q', answer: 'stale' },
      headers: { 'if-match': `"${faq.version}"` },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('VERSION_CONFLICT');

    const deleted = await agentApi('DELETE', path, tenant.key);
    expect(deleted.status).toBe(204);
    expect(usage(deleted)).toEqual({ authCalls: 0, calls: 2, roundTrips: 2, allRoundTrips: 2 });
    expect(operations(deleted)).toBe('BatchGetItem,TransactWriteItems');
    expect((await agentApi('GET', path, tenant.key)).status).toBe(404);
  });

  it('reads a record with a primary rule together with its pointer, beside the key', async () => {
    const location = await createRecordVia(tenant, 'location');
    const path = itemPath(tenant.businessId, 'location', location.id);

    const patched = await agentApi('PATCH', path, tenant.key, { json: { name: 'Moved' } });
    expect(patched.status).toBe(200);
    expect(patched.body.data.name).toBe('Moved');
    // The key, the record and the business's primary pointer: one BatchGetItem.
    expect(usage(patched)).toEqual({ authCalls: 0, calls: 2, roundTrips: 2, allRoundTrips: 2 });
    expect(operations(patched)).toBe('BatchGetItem,TransactWriteItems');
  });

  it('answers 401 to a refused key before anything the read found, and reads nothing without one', async () => {
    const missing = itemPath(tenant.businessId, 'faq', randomUUID());

    const unknownKey = await agentApi('GET', missing, `agk_${randomUUID()}`);
    expect(unknownKey.status).toBe(401);
    expect(unknownKey.body.error.message).toBe('The agent key is not valid');

    const noKey = await agentApi('GET', missing, undefined);
    expect(noKey.status).toBe(401);
    expect(usage(noKey)).toEqual({ authCalls: 0, calls: 0, roundTrips: 0, allRoundTrips: 0 });

    // A path that does not validate starts no read: 401 without a key, 422 with one.
    const badPath = `${collectionPath(tenant.businessId, 'faq')}/not-a-uuid`;
    expect((await agentApi('GET', badPath, `agk_${randomUUID()}`)).status).toBe(401);
    const invalid = await agentApi('GET', badPath, tenant.key);
    expect(invalid.status).toBe(422);
    expect(usage(invalid)).toEqual({ authCalls: 1, calls: 0, roundTrips: 0, allRoundTrips: 1 });
    expect(operations(invalid)).toBe('GetItem');
  });

  it('refuses a revoked key whose lookup went out with the record’s read, and changes nothing', async () => {
    const faq = await createRecordVia(tenant, 'faq', { question: 'Kept', answer: 'Kept' });
    const path = itemPath(tenant.businessId, 'faq', faq.id);
    const { key, record } = await createAgentKey({
      name: 'revoked while in use',
      businesses: [tenant.businessId],
      scopes: ['read', 'write'],
    });
    expect((await agentApi('GET', path, key)).status).toBe(200);
    await revokeAgentKey(record.key_id);

    const got = await agentApi('GET', path, key);
    expect(got.status).toBe(401);
    expect(operations(got)).toBe('BatchGetItem');
    expect(JSON.stringify(got.body)).not.toMatch(/Kept/);
    const patched = await agentApi('PATCH', path, key, { json: { answer: 'Changed' } });
    expect(patched.status).toBe(401);
    expect(operations(patched)).toBe('BatchGetItem');
    expect((await agentApi('GET', path, tenant.key)).body.data).toMatchObject({
      answer: 'Kept',
      version: faq.version,
    });
  });

  it("answers another tenant's key 403 with nothing of the record, and a missing record 404", async () => {
    const faq = await createRecordVia(tenant, 'faq', { question: 'Private question', answer: 'Private' });
    const path = itemPath(tenant.businessId, 'faq', faq.id);

    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const refused = await agentApi(method, path, tenant.other.key, {
        ...(method === 'PATCH' ? { json: { answer: 'x' } } : {}),
      });
      expect(refused.status, method).toBe(403);
      expect(JSON.stringify(refused.body), method).not.toMatch(/Private|version/);
      expect(refused.headers.get('etag'), method).toBeNull();
    }
    const readOnly = await agentApi('PATCH', path, tenant.readOnlyKey, { json: { answer: 'x' } });
    expect(readOnly.status).toBe(403);

    const page = await agentApi('GET', collectionPath(tenant.businessId, 'faq'), tenant.other.key);
    expect(page.status).toBe(403);
    expect(JSON.stringify(page.body)).not.toMatch(/Private/);

    const got = await agentApi('GET', path, tenant.key);
    expect(got.body.data).toMatchObject({ answer: 'Private', version: faq.version });
    expect((await agentApi('GET', itemPath(tenant.businessId, 'faq', randomUUID()), tenant.key)).status).toBe(
      404,
    );
  });
});
