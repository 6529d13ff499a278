import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { createAgentKey } from '#lib/auth/agent-keys.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { agentApi, collectionPath, historyOf, itemPath } from '../support/agents.ts';
import { api } from '../support/api.ts';
import { arrangeTenant, type Tenant } from '../support/tenants.ts';

const edits = (path: string) => `/api/v1/edits${path}`;

describe('edits API: changesets, apply, revert', () => {
  let tenant: Tenant;
  let key: string;
  let sessionId: string;

  const agent = (method: string, path: string, json?: object) => agentApi(method, path, key, { json });
  const faqPath = (id: string) => itemPath(tenant.businessId, 'faq', id);
  const createFaq = async (question: string, answer = 'A') =>
    (await agent('POST', collectionPath(tenant.businessId, 'faq'), { question, answer })).body.data;
  const stage = (items: object[], token = tenant.tokens.owner, session = sessionId) =>
    api('POST', edits(`/sessions/${session}/changesets`), { token, json: { summary: 'test', items } });
  const post = (path: string, token = tenant.tokens.owner) => api('POST', edits(path), { token });

  beforeEach(async () => {
    tenant = await arrangeTenant();
    key = (
      await createAgentKey({ name: 'edits', businesses: [tenant.businessId], scopes: ['read', 'write'] })
    ).key;
    const opened = await api('POST', edits('/sessions'), {
      token: tenant.tokens.owner,
      json: { business_id: tenant.businessId },
    });
    sessionId = opened.body.data.id;
  });

  it('stages, lets one item be unticked, and applies the ticked ones with their history', async () => {
    const keep = await createFaq('Keep?', 'old');
    const drop = await createFaq('Drop?');
    const staged = await stage([
      { entity: 'faq', action: 'create', fields: { question: 'New?', answer: 'Yes' } },
      { entity: 'faq', action: 'update', record_id: keep.id, fields: { answer: 'new' } },
      { entity: 'faq', action: 'delete', record_id: drop.id },
    ]);
    expect(staged.status).toBe(201);
    const changeset = staged.body.data;
    expect(changeset.status).toBe('staged');
    expect(changeset.items.map((i: { status: string; ticked: boolean }) => [i.status, i.ticked])).toEqual([
      ['staged', true],
      ['staged', true],
      ['staged', true],
    ]);
    expect(changeset.items[1]).toMatchObject({ before: { answer: 'old' }, base_version: 1 });

    const unticked = await api('PATCH', edits(`/changesets/${changeset.id}/items/${changeset.items[2].id}`), {
      token: tenant.tokens.owner,
      json: { ticked: false },
    });
    expect(unticked.status).toBe(200);
    expect(unticked.body.data.items[2].ticked).toBe(false);

    const applied = await post(`/changesets/${changeset.id}/apply`);
    expect(applied.status).toBe(200);
    expect(applied.body.data.status).toBe('applied');
    expect(applied.body.data.counts).toMatchObject({ applied: 2, skipped: 1, conflict: 0 });
    expect(applied.body.data.items.map((i: { status: string }) => i.status)).toEqual([
      'applied',
      'applied',
      'skipped',
    ]);

    expect((await agent('GET', faqPath(keep.id))).body.data).toMatchObject({ answer: 'new', version: 2 });
    expect((await agent('GET', faqPath(drop.id))).status).toBe(200);
    const created = applied.body.data.items[0];
    expect((await agent('GET', faqPath(created.record_id))).body.data).toMatchObject({
      question: 'New?',
      version: 1,
    });
    const entries = await historyOf(tenant.businessId, keep.id);
    expect(entries.at(-1)).toMatchObject({
      action: 'update',
      changeset_id: changeset.id,
      actor: { type: 'user' },
    });

    const read = await api('GET', edits(`/changesets/${changeset.id}`), { token: tenant.tokens.owner });
    expect(read.body.data.status).toBe('applied');
  });

  it('applies everything except the item whose field an agent changed after staging', async () => {
    const moved = await createFaq('Moved?', 'staged value');
    const calm = await createFaq('Calm?', 'calm');
    const changeset = (
      await stage([
        { entity: 'faq', action: 'update', record_id: moved.id, fields: { answer: 'from changeset' } },
        { entity: 'faq', action: 'update', record_id: calm.id, fields: { answer: 'from changeset' } },
      ])
    ).body.data;

    await agent('PATCH', faqPath(moved.id), { answer: 'agent wrote this' });
    await agent('PATCH', faqPath(calm.id), { position: 5 });
    const applied = await post(`/changesets/${changeset.id}/apply`);

    expect(applied.body.data.counts).toMatchObject({ applied: 1, conflict: 1 });
    expect(applied.body.data.items[0]).toMatchObject({
      status: 'conflict',
      outcome: { fields: [{ field: 'answer', staged_before: 'staged value', current: 'agent wrote this' }] },
    });
    expect(applied.body.data.items[1]).toMatchObject({ status: 'applied', outcome: { version: 3 } });
    expect((await agent('GET', faqPath(moved.id))).body.data.answer).toBe('agent wrote this');
    expect((await agent('GET', faqPath(calm.id))).body.data).toMatchObject({
      answer: 'from changeset',
      position: 5,
    });
  });

  it('applies N items in one transaction, with the records read in the access check (fixed bookkeeping)', async () => {
    const faqs = await Promise.all(['A?', 'B?', 'C?', 'D?'].map((q) => createFaq(q)));
    const changeset = (
      await stage(
        faqs.map((faq) => ({ entity: 'faq', action: 'update', record_id: faq.id, fields: { answer: 'x' } })),
      )
    ).body.data;

    const applied = await post(`/changesets/${changeset.id}/apply`);
    // Changeset Query; session touch, one BatchGetItem of access and records, and the claim, sent
    // together; one transaction of the 4 items (3 actions each); final status.
    expect(Number(applied.headers.get('x-local-dynamodb-calls'))).toBe(6);
    expect(Number(applied.headers.get('x-local-dynamodb-round-trips'))).toBe(4);
  });

  it('refuses any invalid item with 422 naming it, and stages nothing', async () => {
    const faq = await createFaq('Q?');
    const response = await stage([
      { entity: 'faq', action: 'create', fields: { question: 'Fine?', answer: 'Yes' } },
      { entity: 'faq', action: 'update', record_id: faq.id, fields: { answer: 42 } },
      { entity: 'faq', action: 'delete', record_id: randomUUID() },
      {
        entity: 'job_posting',
        action: 'create',
        fields: { title: 'T', description: 'D', location_id: randomUUID() },
      },
    ]);

    expect(response.status).toBe(422);
    const locations = response.body.error.details.map((d: { loc: (string | number)[] }) => d.loc.join('.'));
    expect(locations).toEqual([
      'body.items.1.fields.answer',
      'body.items.2.record_id',
      'body.items.3.fields.location_id',
    ]);
    const list = await api('GET', edits(`/businesses/${tenant.businessId}/changesets`), {
      token: tenant.tokens.owner,
    });
    expect(list.body.data).toEqual([]);
    expect((await stage([])).status).toBe(422);
  });

  it('edits the profile every business is born with: updates apply, create and delete are refused (422)', async () => {
    const refused = await stage([
      { entity: 'profile', action: 'create', fields: { name: 'Second profile' } },
      { entity: 'profile', action: 'delete', record_id: 'profile' },
    ]);
    expect(refused.status).toBe(422);
    expect(refused.body.error.details).toEqual([
      expect.objectContaining({
        loc: ['body', 'items', 0, 'action'],
        msg: expect.stringContaining('update it'),
      }),
      expect.objectContaining({
        loc: ['body', 'items', 1, 'action'],
        msg: expect.stringContaining('update it'),
      }),
    ]);

    // record_id may be left out: the profile's is always `profile`.
    const staged = await stage([{ entity: 'profile', action: 'update', fields: { tagline: 'Fresh daily' } }]);
    expect(staged.status).toBe(201);
    expect(staged.body.data.items[0]).toMatchObject({ record_id: 'profile', before: { tagline: null } });
    const applied = await post(`/changesets/${staged.body.data.id}/apply`);
    expect(applied.body.data.items[0].status).toBe('applied');

    const snapshot = await api('GET', edits(`/sessions/${sessionId}/snapshot`), {
      token: tenant.tokens.owner,
    });
    expect(snapshot.body.data.profile).toMatchObject({ tagline: 'Fresh daily', version: 2 });
  });

  it('answers 409 in the wrong state: apply twice, tick or discard after apply, revert twice, closed session', async () => {
    const faq = await createFaq('Q?');
    const changeset = (
      await stage([{ entity: 'faq', action: 'update', record_id: faq.id, fields: { answer: 'B' } }])
    ).body.data;
    expect((await post(`/changesets/${changeset.id}/apply`)).status).toBe(200);

    expect((await post(`/changesets/${changeset.id}/apply`)).status).toBe(409);
    const tick = await api('PATCH', edits(`/changesets/${changeset.id}/items/${changeset.items[0].id}`), {
      token: tenant.tokens.owner,
      json: { ticked: false },
    });
    expect(tick.status).toBe(409);
    expect((await post(`/changesets/${changeset.id}/discard`)).status).toBe(409);
    expect((await post(`/changesets/${changeset.id}/revert`)).status).toBe(200);
    expect((await post(`/changesets/${changeset.id}/revert`)).status).toBe(409);

    const another = (await stage([{ entity: 'faq', action: 'delete', record_id: faq.id }])).body.data;
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.editSession(sessionId),
        UpdateExpression: 'SET last_used_at = :old',
        ExpressionAttributeValues: { ':old': new Date(Date.now() - 2 * 3600 * 1000).toISOString() },
      }),
    );
    expect((await post(`/changesets/${another.id}/apply`)).status).toBe(409);
    expect((await agent('GET', faqPath(faq.id))).status).toBe(200);
  });

  it('discards a staged changeset, which then cannot be applied', async () => {
    const faq = await createFaq('Q?');
    const changeset = (await stage([{ entity: 'faq', action: 'delete', record_id: faq.id }])).body.data;

    const discarded = await post(`/changesets/${changeset.id}/discard`);
    expect(discarded.body.data.status).toBe('discarded');
    expect((await post(`/changesets/${changeset.id}/apply`)).status).toBe(409);
    expect((await agent('GET', faqPath(faq.id))).status).toBe(200);
    const listed = await api('GET', edits(`/businesses/${tenant.businessId}/changesets?status=discarded`), {
      token: tenant.tokens.owner,
    });
    expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([changeset.id]);
  });

  it('reverts where nothing changed since, and skips the item an agent touched after applying', async () => {
    const updated = await createFaq('Updated?', 'before');
    const touched = await createFaq('Touched?', 'before');
    const deleted = await createFaq('Deleted?', 'gone');
    const changeset = (
      await stage([
        { entity: 'faq', action: 'update', record_id: updated.id, fields: { answer: 'after' } },
        { entity: 'faq', action: 'update', record_id: touched.id, fields: { answer: 'after' } },
        { entity: 'faq', action: 'delete', record_id: deleted.id },
        { entity: 'faq', action: 'create', fields: { question: 'Created?', answer: 'x' } },
      ])
    ).body.data;
    const applied = (await post(`/changesets/${changeset.id}/apply`)).body.data;
    await agent('PATCH', faqPath(touched.id), { answer: 'agent after apply' });

    const reverted = await post(`/changesets/${changeset.id}/revert`);
    expect(reverted.status).toBe(200);
    expect(reverted.body.data.status).toBe('reverted');
    expect(reverted.body.data.items.map((i: { status: string }) => i.status)).toEqual([
      'reverted',
      'revert_conflict',
      'reverted',
      'reverted',
    ]);
    expect((await agent('GET', faqPath(updated.id))).body.data).toMatchObject({
      answer: 'before',
      version: 3,
    });
    expect((await agent('GET', faqPath(touched.id))).body.data.answer).toBe('agent after apply');
    expect((await agent('GET', faqPath(deleted.id))).body.data).toMatchObject({
      question: 'Deleted?',
      answer: 'gone',
      version: 3,
    });
    expect((await agent('GET', faqPath(applied.items[3].record_id))).status).toBe(404);
  });

  it('applies a changeset exactly once under two concurrent applies, writing history once', async () => {
    const faqs = await Promise.all(['A?', 'B?', 'C?'].map((q) => createFaq(q)));
    const changeset = (
      await stage(
        faqs.map((faq) => ({
          entity: 'faq',
          action: 'update',
          record_id: faq.id,
          fields: { answer: 'changed' },
        })),
      )
    ).body.data;

    const results = await Promise.all([
      post(`/changesets/${changeset.id}/apply`),
      post(`/changesets/${changeset.id}/apply`),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    for (const faq of faqs) {
      const entries = (await historyOf(tenant.businessId, faq.id)).filter(
        (e) => e.changeset_id === changeset.id,
      );
      expect(entries).toHaveLength(1);
      expect((await agent('GET', faqPath(faq.id))).body.data.version).toBe(2);
    }
  });

  it('answers 401 without a token on all 15 edits operations', async () => {
    const editsRoutes = routeTable.filter((route) => route.area === 'edits');
    expect(editsRoutes).toHaveLength(15);
    for (const route of editsRoutes) {
      const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
        name === 'entity' ? 'faq' : randomUUID(),
      );
      const response = await api(route.method, path, { json: route.example });
      expect(response.status, route.operationId).toBe(401);
    }
  });

  it('answers 404 for an unknown item of a changeset', async () => {
    const faq = await createFaq('Q?');
    const changeset = (await stage([{ entity: 'faq', action: 'delete', record_id: faq.id }])).body.data;
    const response = await api('PATCH', edits(`/changesets/${changeset.id}/items/${randomUUID()}`), {
      token: tenant.tokens.owner,
      json: { ticked: false },
    });
    expect(response.status).toBe(404);
  });

  it("hides another user's sessions and changesets (404) and refuses non-holders (403) and anonymous callers (401)", async () => {
    const faq = await createFaq('Q?');
    const changeset = (await stage([{ entity: 'faq', action: 'delete', record_id: faq.id }])).body.data;

    expect(
      (await stage([{ entity: 'faq', action: 'delete', record_id: faq.id }], tenant.tokens.editor)).status,
    ).toBe(404);
    for (const path of [
      `/changesets/${changeset.id}/apply`,
      `/changesets/${changeset.id}/discard`,
      `/changesets/${changeset.id}/revert`,
    ]) {
      expect((await post(path, tenant.tokens.editor)).status, path).toBe(404);
    }
    expect(
      (await api('GET', edits(`/changesets/${changeset.id}`), { token: tenant.tokens.editor })).status,
    ).toBe(404);

    const other = await arrangeTenant();
    for (const token of [tenant.tokens.viewer, other.tokens.owner]) {
      expect((await api('GET', edits(`/businesses/${tenant.businessId}/changesets`), { token })).status).toBe(
        403,
      );
      expect(
        (await post(`/businesses/${tenant.businessId}/change-log/${randomUUID()}/undo`, token)).status,
      ).toBe(403);
    }
    expect((await post(`/businesses/${tenant.businessId}/change-log/${randomUUID()}/undo`)).status).toBe(404);
    expect((await api('POST', edits(`/changesets/${changeset.id}/apply`))).status).toBe(401);
    expect((await agent('GET', faqPath(faq.id))).status).toBe(200);
  });
});
