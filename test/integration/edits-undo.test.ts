import { beforeEach, describe, expect, it } from 'vitest';
import { createAgentKey } from '#lib/auth/agent-keys.ts';
import { agentApi, collectionPath, historyOf, itemPath } from '../support/agents.ts';
import { api } from '../support/api.ts';
import { arrangeTenant, type Tenant } from '../support/tenants.ts';

const edits = (path: string) => `/api/v1/edits${path}`;

/** Undo of Change History entries (the change log), whoever made the change. */
describe('edits API: undo', () => {
  let tenant: Tenant;
  let key: string;

  const agent = (method: string, path: string, json?: object) => agentApi(method, path, key, { json });
  const faqPath = (id: string) => itemPath(tenant.businessId, 'faq', id);
  const createFaq = async (question: string, answer = 'A') =>
    (await agent('POST', collectionPath(tenant.businessId, 'faq'), { question, answer })).body.data;
  const post = (path: string, token = tenant.tokens.owner) => api('POST', edits(path), { token });

  beforeEach(async () => {
    tenant = await arrangeTenant();
    key = (
      await createAgentKey({ name: 'edits', businesses: [tenant.businessId], scopes: ['read', 'write'] })
    ).key;
  });

  it('undoes a Change History entry once; an undo can itself be undone; a moved value blocks it', async () => {
    const faq = await createFaq('Q?', 'one');
    await agent('PATCH', faqPath(faq.id), { answer: 'two' });
    const log = edits(`/businesses/${tenant.businessId}/change-log`);
    const [update] = (await api('GET', log, { token: tenant.tokens.owner })).body.data;

    const undone = await post(`/businesses/${tenant.businessId}/change-log/${update.id}/undo`);
    expect(undone.status).toBe(200);
    expect(undone.body.data.record).toMatchObject({ answer: 'one', version: 3 });
    expect((await post(`/businesses/${tenant.businessId}/change-log/${update.id}/undo`)).status).toBe(409);

    const redo = await post(`/businesses/${tenant.businessId}/change-log/${undone.body.data.entry_id}/undo`);
    expect(redo.status).toBe(200);
    expect((await agent('GET', faqPath(faq.id))).body.data).toMatchObject({ answer: 'two', version: 4 });

    await agent('PATCH', faqPath(faq.id), { answer: 'three' });
    const blocked = await post(`/businesses/${tenant.businessId}/change-log/${redo.body.data.entry_id}/undo`);
    expect(blocked.status).toBe(409);
    expect(blocked.body.error.details.fields[0]).toMatchObject({
      field: 'answer',
      expected: 'two',
      current: 'three',
    });

    const entries = await historyOf(tenant.businessId, faq.id);
    expect(entries.map((e) => e.action)).toEqual(['create', 'update', 'update', 'update', 'update']);
  });

  it('undoes a create (while untouched) and a delete (recreating the record)', async () => {
    const created = await createFaq('Created?');
    const removed = await createFaq('Removed?', 'kept');
    await agent('DELETE', faqPath(removed.id));
    const entries = (
      await api('GET', edits(`/businesses/${tenant.businessId}/change-log`), { token: tenant.tokens.owner })
    ).body.data;
    const createEntry = entries.find(
      (e: { record_id: string; action: string }) => e.record_id === created.id && e.action === 'create',
    );
    const deleteEntry = entries.find((e: { action: string }) => e.action === 'delete');

    expect((await post(`/businesses/${tenant.businessId}/change-log/${createEntry.id}/undo`)).status).toBe(
      200,
    );
    expect((await agent('GET', faqPath(created.id))).status).toBe(404);
    expect((await post(`/businesses/${tenant.businessId}/change-log/${deleteEntry.id}/undo`)).status).toBe(
      200,
    );
    expect((await agent('GET', faqPath(removed.id))).body.data).toMatchObject({
      question: 'Removed?',
      answer: 'kept',
      version: 2,
    });
  });

  it("reads the entry beside the access check: an unknown entry is a 404 after one round trip, another tenant's owner a 403", async () => {
    const faq = await createFaq('Q?');
    const entries = (
      await api('GET', edits(`/businesses/${tenant.businessId}/change-log`), { token: tenant.tokens.owner })
    ).body.data;
    const entry = entries.find((e: { record_id: string }) => e.record_id === faq.id);
    const other = await arrangeTenant();

    const unknown = await post(`/businesses/${tenant.businessId}/change-log/${crypto.randomUUID()}/undo`);
    expect(unknown.status).toBe(404);
    expect(Number(unknown.headers.get('x-local-dynamodb-round-trips'))).toBe(1);

    const stranger = await post(
      `/businesses/${tenant.businessId}/change-log/${entry.id}/undo`,
      other.tokens.owner,
    );
    expect(stranger.status).toBe(403);
    expect((await agent('GET', faqPath(faq.id))).status).toBe(200);
  });
});
