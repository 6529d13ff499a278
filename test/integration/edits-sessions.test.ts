import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { createAgentKey } from '#lib/auth/agent-keys.ts';
import { putMember } from '#lib/businesses/business-store.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { localUserId } from '../../infra/local/dev-issuer.ts';
import { agentApi, collectionPath } from '../support/agents.ts';
import { api } from '../support/api.ts';
import { arrangeTenant, platformAdminToken, type Tenant } from '../support/tenants.ts';

const edits = (path: string) => `/api/v1/edits${path}`;

async function openSession(token: string, businessId: string) {
  const response = await api('POST', edits('/sessions'), { token, json: { business_id: businessId } });
  expect(response.status).toBe(201);
  return response.body.data as { id: string; business_id: string; is_open: boolean };
}

/** An agent key for the tenant's business, to put records in it through the agent API. */
async function agentKeyFor(businessId: string) {
  return (await createAgentKey({ name: 'edits-test', businesses: [businessId], scopes: ['read', 'write'] }))
    .key;
}

describe('edits API: sessions and reads', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await arrangeTenant();
  });

  it('opens a session for an owner or editor, readable by its opener only', async () => {
    for (const token of [tenant.tokens.owner, tenant.tokens.editor]) {
      const session = await openSession(token, tenant.businessId);
      expect(session).toMatchObject({ business_id: tenant.businessId, is_open: true, client_id: null });

      const read = await api('GET', edits(`/sessions/${session.id}`), { token });
      expect(read.status).toBe(200);
      expect(read.body.data.id).toBe(session.id);
    }
    const ownersSession = await openSession(tenant.tokens.owner, tenant.businessId);
    expect(
      (await api('GET', edits(`/sessions/${ownersSession.id}`), { token: tenant.tokens.editor })).status,
    ).toBe(404);
    expect(
      (await api('GET', edits(`/sessions/${randomUUID()}`), { token: tenant.tokens.owner })).status,
    ).toBe(404);
  });

  it('refuses to open a session for a viewer or another tenant (403), and without a token (401)', async () => {
    const other = await arrangeTenant();
    for (const token of [tenant.tokens.viewer, other.tokens.owner]) {
      const response = await api('POST', edits('/sessions'), {
        token,
        json: { business_id: tenant.businessId },
      });
      expect(response.status).toBe(403);
    }
    expect((await api('POST', edits('/sessions'), { json: { business_id: tenant.businessId } })).status).toBe(
      401,
    );
    const missing = await api('POST', edits('/sessions'), {
      token: platformAdminToken(),
      json: { business_id: randomUUID() },
    });
    expect(missing.status).toBe(404);
  });

  it('answers 422 for a bad business id, an unknown field, a bad session id and an unknown entity', async () => {
    const session = await openSession(tenant.tokens.owner, tenant.businessId);
    const cases: [string, string, object | undefined][] = [
      ['POST', edits('/sessions'), { business_id: 'nope' }],
      ['POST', edits('/sessions'), { business_id: tenant.businessId, extra: 1 }],
      ['GET', edits('/sessions/not-a-uuid'), undefined],
      ['GET', edits(`/sessions/${session.id}/records/widget/${randomUUID()}`), undefined],
      ['GET', edits(`/sessions/${session.id}/records/faq/profile-ish`), undefined],
    ];
    for (const [method, path, json] of cases) {
      expect((await api(method, path, { token: tenant.tokens.owner, json })).status, path).toBe(422);
    }
  });

  it('snapshot: the profile in full, every other record trimmed with its label, in list order', async () => {
    const key = await agentKeyFor(tenant.businessId);
    const create = async (entity: 'faq' | 'team_member', body: object) =>
      (await agentApi('POST', collectionPath(tenant.businessId, entity), key, { json: body })).body.data;
    const later = await create('faq', { question: 'Second?', answer: 'A', position: 2 });
    const first = await create('faq', { question: 'First?', answer: 'A', position: 1 });
    const ada = await create('team_member', { first_name: 'Ada', last_name: 'Lovelace' });

    const session = await openSession(tenant.tokens.editor, tenant.businessId);
    const snapshot = await api('GET', edits(`/sessions/${session.id}/snapshot`), {
      token: tenant.tokens.editor,
    });

    expect(snapshot.status).toBe(200);
    expect(snapshot.body.data.business_id).toBe(tenant.businessId);
    // Every business is created with its profile, named like the business.
    expect(snapshot.body.data.profile).toMatchObject({
      id: 'profile',
      business_id: tenant.businessId,
      name: expect.stringMatching(/^Test business /),
      version: 1,
    });
    expect(snapshot.body.data.records.faq).toEqual([
      { record_id: first.id, version: 1, label: 'First?', updated_at: first.updated_at },
      { record_id: later.id, version: 1, label: 'Second?', updated_at: later.updated_at },
    ]);
    expect(snapshot.body.data.records.team_member).toEqual([
      { record_id: ada.id, version: 1, label: 'Ada Lovelace', updated_at: ada.updated_at },
    ]);
    expect(snapshot.body.data.records.location).toEqual([]);
    // One conditional UpdateItem reads and touches the session; then the access check beside the Query.
    expect(Number(snapshot.headers.get('x-local-dynamodb-calls'))).toBeLessThanOrEqual(3);
    expect(Number(snapshot.headers.get('x-local-dynamodb-round-trips'))).toBeLessThanOrEqual(2);
  });

  it('record: one record in full with its version; 404 for records of other businesses', async () => {
    const key = await agentKeyFor(tenant.businessId);
    const faq = (
      await agentApi('POST', collectionPath(tenant.businessId, 'faq'), key, {
        json: { question: 'Q', answer: 'A' },
      })
    ).body.data;
    const other = await arrangeTenant();
    const theirKey = await agentKeyFor(other.businessId);
    const theirs = (
      await agentApi('POST', collectionPath(other.businessId, 'faq'), theirKey, {
        json: { question: 'Q', answer: 'A' },
      })
    ).body.data;
    const session = await openSession(tenant.tokens.owner, tenant.businessId);

    const read = await api('GET', edits(`/sessions/${session.id}/records/faq/${faq.id}`), {
      token: tenant.tokens.owner,
    });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({ entity: 'faq', record_id: faq.id, version: 1, data: faq });
    // The session's touch, then the record in the access check's own BatchGetItem.
    expect(read.headers.get('x-local-dynamodb-operations')).toBe('UpdateItem,BatchGetItem');

    const profile = await api('GET', edits(`/sessions/${session.id}/records/profile/profile`), {
      token: tenant.tokens.owner,
    });
    expect(profile.body.data).toMatchObject({ entity: 'profile', record_id: 'profile', version: 1 });

    for (const path of [`/records/faq/${theirs.id}`, `/records/location/${faq.id}`]) {
      expect(
        (await api('GET', edits(`/sessions/${session.id}${path}`), { token: tenant.tokens.owner })).status,
        path,
      ).toBe(404);
    }
  });

  it("is only usable by its opener, and not after the opener's rights are gone (403)", async () => {
    const session = await openSession(tenant.tokens.editor, tenant.businessId);
    const snapshot = edits(`/sessions/${session.id}/snapshot`);
    expect((await api('GET', snapshot, { token: tenant.tokens.owner })).status).toBe(404);

    await putMember(tenant.businessId, localUserId(tenant.emails.editor), 'viewer');
    expect((await api('GET', snapshot, { token: tenant.tokens.editor })).status).toBe(403);
    const read = await api('GET', edits(`/sessions/${session.id}`), { token: tenant.tokens.editor });
    expect(read.body.data.is_open).toBe(false);
  });

  it('closes 60 minutes after its last use (409 from then on)', async () => {
    const session = await openSession(tenant.tokens.owner, tenant.businessId);
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.editSession(session.id),
        UpdateExpression: 'SET last_used_at = :old',
        ExpressionAttributeValues: { ':old': new Date(Date.now() - 61 * 60 * 1000).toISOString() },
      }),
    );

    const response = await api('GET', edits(`/sessions/${session.id}/snapshot`), {
      token: tenant.tokens.owner,
    });
    expect(response.status).toBe(409);
    // The refused touch returns the session it found, so only the access check follows it.
    expect(Number(response.headers.get('x-local-dynamodb-calls'))).toBe(2);
    expect(
      (await api('GET', edits(`/sessions/${session.id}`), { token: tenant.tokens.owner })).body.data.is_open,
    ).toBe(false);
  });

  it("answers 404 for a missing session or another user's after the one refused touch", async () => {
    const editorsSession = await openSession(tenant.tokens.editor, tenant.businessId);
    for (const sessionId of [randomUUID(), editorsSession.id]) {
      for (const [method, path, json] of [
        ['GET', `/sessions/${sessionId}/snapshot`, undefined],
        [
          'POST',
          `/sessions/${sessionId}/changesets`,
          { items: [{ entity: 'faq', action: 'create', fields: { question: 'Q?', answer: 'A' } }] },
        ],
      ] as const) {
        const response = await api(method, edits(path), { token: tenant.tokens.owner, json });

        expect(response.status).toBe(404);
        expect(response.body.error.message).toBe(`No edit session ${sessionId}`);
        expect(Number(response.headers.get('x-local-dynamodb-calls'))).toBe(1);
      }
    }
  });

  it('closes 24 hours after it was opened, however recently it was used', async () => {
    const session = await openSession(tenant.tokens.owner, tenant.businessId);
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.editSession(session.id),
        UpdateExpression: 'SET created_at = :old',
        ExpressionAttributeValues: { ':old': new Date(Date.now() - 25 * 3600 * 1000).toISOString() },
      }),
    );

    expect(
      (await api('GET', edits(`/sessions/${session.id}/snapshot`), { token: tenant.tokens.owner })).status,
    ).toBe(409);
    expect(
      (await api('GET', edits(`/sessions/${session.id}`), { token: tenant.tokens.owner })).body.data.is_open,
    ).toBe(false);
  });

  it('a stored session of the wrong shape is a 500 that shows nothing of the item, not a wrong answer', async () => {
    const session = await openSession(tenant.tokens.owner, tenant.businessId);
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.editSession(session.id),
        UpdateExpression: 'SET client_id = :number',
        ExpressionAttributeValues: { ':number': 7 },
      }),
    );

    const read = await api('GET', edits(`/sessions/${session.id}`), { token: tenant.tokens.owner });

    expect(read.status).toBe(500);
    expect(read.body.error).toEqual({ code: 'INTERNAL', message: 'An unexpected error occurred' });
  });

  it('claims: the businesses the caller holds, with the role; viewers hold nothing', async () => {
    const owner = await api('GET', edits('/claims'), { token: tenant.tokens.owner });
    expect(owner.status).toBe(200);
    expect(owner.body.data).toEqual([
      { business_id: tenant.businessId, name: expect.any(String), role: 'owner' },
    ]);
    expect((await api('GET', edits('/claims'), { token: tenant.tokens.editor })).body.data[0].role).toBe(
      'editor',
    );
    expect((await api('GET', edits('/claims'), { token: tenant.tokens.viewer })).body.data).toEqual([]);
    expect((await api('GET', edits('/claims'))).status).toBe(401);
  });

  it('business summary: name, role and record counts, for holders only', async () => {
    const key = await agentKeyFor(tenant.businessId);
    for (const question of ['A?', 'B?']) {
      await agentApi('POST', collectionPath(tenant.businessId, 'faq'), key, {
        json: { question, answer: 'x' },
      });
    }
    const summary = await api('GET', edits(`/businesses/${tenant.businessId}`), {
      token: tenant.tokens.owner,
    });
    expect(summary.status).toBe(200);
    expect(summary.body.data).toMatchObject({
      id: tenant.businessId,
      role: 'owner',
      record_counts: { faq: 2, location: 0 },
    });

    const other = await arrangeTenant();
    for (const token of [tenant.tokens.viewer, other.tokens.owner]) {
      expect((await api('GET', edits(`/businesses/${tenant.businessId}`), { token })).status).toBe(403);
    }
  });

  it('change log: every write, newest first, in pages; holders only', async () => {
    const key = await agentKeyFor(tenant.businessId);
    const faq = (
      await agentApi('POST', collectionPath(tenant.businessId, 'faq'), key, {
        json: { question: 'Q', answer: 'A1' },
      })
    ).body.data;
    await agentApi('PATCH', `${collectionPath(tenant.businessId, 'faq')}/${faq.id}`, key, {
      json: { answer: 'A2' },
    });
    await agentApi('DELETE', `${collectionPath(tenant.businessId, 'faq')}/${faq.id}`, key);

    const path = edits(`/businesses/${tenant.businessId}/change-log`);
    const first = await api('GET', `${path}?limit=2`, { token: tenant.tokens.owner });
    expect(first.status).toBe(200);
    expect(first.body.data.map((entry: { action: string }) => entry.action)).toEqual(['delete', 'update']);
    expect(first.body.data[1]).toMatchObject({
      entity: 'faq',
      record_id: faq.id,
      before: { answer: 'A1' },
      after: { answer: 'A2' },
    });
    const second = await api('GET', `${path}?limit=2&cursor=${first.body.meta.next_cursor}`, {
      token: tenant.tokens.owner,
    });
    expect(second.body.data.map((entry: { action: string }) => entry.action)).toEqual(['create']);

    expect((await api('GET', path, { token: tenant.tokens.viewer })).status).toBe(403);
    expect((await api('GET', `${path}?cursor=bogus`, { token: tenant.tokens.owner })).status).toBe(422);
  });
});
