import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import { agentEntities, type EntityName } from '#lib/records/entities.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import {
  type AgentTenant,
  agentApi,
  arrangeAgentTenant,
  collectionPath,
  minimalBodies,
} from '../support/agents.ts';
import { type ApiResponse, api } from '../support/api.ts';
import { arrangeTenant, platformAdminToken, type Tenant } from '../support/tenants.ts';

// Idempotency-Key on the POSTs that create something: a retry of a request
// whose answer was lost gets the first answer, and nothing is created twice.

type Kind = Exclude<EntityName, 'profile'>;

const withKey = (key: string) => ({ 'idempotency-key': key });
/** DynamoDB calls made after authentication (the harness counts them). */
const operationCalls = (response: ApiResponse) => Number(response.headers.get('x-local-dynamodb-calls'));

/** A retry answered from the store: the first status and body, this request's id, a marker. */
function expectReplayOf(retry: ApiResponse, first: ApiResponse) {
  expect(retry.status).toBe(first.status);
  expect(retry.body).toEqual(first.body);
  expect(retry.headers.get('etag')).toBe(first.headers.get('etag'));
  expect(retry.headers.get('idempotent-replayed')).toBe('true');
  expect(retry.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
  // Only the look-up of the stored answer: no write, no read of the records.
  expect(operationCalls(retry)).toBe(1);
}

function expectKeyRefused(response: ApiResponse, type: string) {
  expect(response.status).toBe(422);
  expect(response.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
  expect(response.body.error.details).toContainEqual(
    expect.objectContaining({ loc: ['header', 'idempotency-key'], type }),
  );
}

it('every creating POST, and only those, takes Idempotency-Key', () => {
  const idempotent = routeTable.filter((route) => route.idempotent).map((route) => route.operationId);
  expect(idempotent.sort()).toEqual(
    [
      ...agentEntities.map(
        (definition) => `create${definition.name.replace(/(^|_)(\w)/g, (_m, _u, c) => c.toUpperCase())}`,
      ),
      'openEditSession',
      'stageChangeset',
      'invitePlatformAdmin',
    ].sort(),
  );
  for (const route of routeTable.filter((candidate) => candidate.idempotent)) {
    expect(route.method).toBe('POST');
    expect(route.successStatus).toBe(201);
  }
});

describe.each(agentEntities.map((definition) => [definition.name as Kind] as const))(
  'agent API create with Idempotency-Key: %s',
  (entity) => {
    let tenant: AgentTenant;
    const body = minimalBodies[entity];
    const create = (
      key: string | undefined,
      json: unknown = body,
      agentKey = tenant.key,
      businessId = tenant.businessId,
    ) =>
      agentApi('POST', collectionPath(businessId, entity), agentKey, {
        json,
        ...(key === undefined ? {} : { headers: withKey(key) }),
      });
    const stored = async (businessId = tenant.businessId) =>
      (await agentApi('GET', collectionPath(businessId, entity), tenant.readOnlyKey)).body.data as unknown[];

    beforeEach(async () => {
      tenant = await arrangeAgentTenant();
    });

    it('a retry whose first answer was lost gets that answer, and one record exists', async () => {
      const key = randomUUID();
      const first = await create(key);
      expect(first.status).toBe(201);
      expect(first.headers.get('idempotent-replayed')).toBeNull();

      const retry = await create(key);
      expectReplayOf(retry, first);
      const again = await create(key);
      expectReplayOf(again, first);
      expect(await stored()).toEqual([first.body.data]);
    });

    it('the same key with another body is a 422, and nothing more is created', async () => {
      const key = randomUUID();
      expect((await create(key)).status).toBe(201);
      const [field, value] = Object.entries(body)[0] as [string, unknown];
      const other = await create(key, {
        ...body,
        [field]: typeof value === 'string' ? `${value} (2)` : value,
        position: 7,
      });
      expectKeyRefused(other, 'idempotency_key_reused');
      expect(other.body.error.message).toMatch(/already used with a different request/);
      expect(await stored()).toHaveLength(1);
    });

    it('another tenant using the same key is independent of the first', async () => {
      const key = randomUUID();
      const mine = await create(key);
      const theirs = await create(key, body, tenant.other.key, tenant.other.businessId);
      expect(theirs.status).toBe(201);
      expect(theirs.headers.get('idempotent-replayed')).toBeNull();
      expect(theirs.body.data.business_id).toBe(tenant.other.businessId);
      expect(theirs.body.data.id).not.toBe(mine.body.data.id);
      expect(await stored()).toHaveLength(1);
    });
  },
);

describe('agent API: the key itself', () => {
  let tenant: AgentTenant;
  const path = () => collectionPath(tenant.businessId, 'faq');
  const body = minimalBodies.faq;
  beforeEach(async () => {
    tenant = await arrangeAgentTenant();
  });

  it.each([
    ['empty', ''],
    ['with a space', 'a b'],
    ['longer than 255', 'k'.repeat(256)],
    ['not ASCII', 'clé'],
  ])('refuses a key %s with 422, creating nothing', async (_name, key) => {
    const response = await agentApi('POST', path(), tenant.key, { json: body, headers: withKey(key) });
    expectKeyRefused(response, 'invalid_format');
    expect((await agentApi('GET', path(), tenant.key)).body.data).toHaveLength(0);
  });

  it('takes a key of 255 visible characters', async () => {
    const key = `${'~!'.repeat(127)}x`;
    const first = await agentApi('POST', path(), tenant.key, { json: body, headers: withKey(key) });
    expect(first.status).toBe(201);
    expectReplayOf(await agentApi('POST', path(), tenant.key, { json: body, headers: withKey(key) }), first);
  });

  it('without the header every POST creates, as before', async () => {
    for (let i = 0; i < 2; i += 1) {
      expect((await agentApi('POST', path(), tenant.key, { json: body })).status).toBe(201);
    }
    expect((await agentApi('GET', path(), tenant.key)).body.data).toHaveLength(2);
  });

  it('does not store a failure: the same key may be retried after a 422', async () => {
    const key = randomUUID();
    const refused = await agentApi('POST', path(), tenant.key, {
      json: { ...body, question: '' },
      headers: withKey(key),
    });
    expect(refused.status).toBe(422);
    const created = await agentApi('POST', path(), tenant.key, { json: body, headers: withKey(key) });
    expect(created.status).toBe(201);
    expect(created.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a key is the caller’s own: another key of the same business with it is independent', async () => {
    const key = randomUUID();
    const { createAgentKey } = await import('#lib/auth/agent-keys.ts');
    const second = await createAgentKey({
      name: 'second',
      businesses: [tenant.businessId],
      scopes: ['read', 'write'],
    });
    const a = await agentApi('POST', path(), tenant.key, { json: body, headers: withKey(key) });
    const b = await agentApi('POST', path(), second.key, { json: body, headers: withKey(key) });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.data.id).not.toBe(a.body.data.id);
  });

  it('concurrent duplicates create one record: each answer is the first one or a 409 to retry', async () => {
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        agentApi('POST', path(), tenant.key, { json: body, headers: withKey(key) }),
      ),
    );
    const records = (await agentApi('GET', path(), tenant.key)).body.data;
    expect(records).toHaveLength(1);
    for (const answer of answers) {
      if (answer.status === 409) {
        expect(answer.body).toMatchObject({ success: false, error: { code: 'CONFLICT' } });
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      } else {
        expect(answer.status).toBe(201);
        expect(answer.body.data).toEqual(records[0]);
      }
    }
    // Once the first has finished, a retry of a 409 gets the first answer.
    const retry = await agentApi('POST', path(), tenant.key, { json: body, headers: withKey(key) });
    expect(retry.body.data).toEqual(records[0]);
  });
});

describe('edits API with Idempotency-Key', () => {
  let tenant: Tenant;
  const edits = (path: string) => `/api/v1/edits${path}`;
  beforeEach(async () => {
    tenant = await arrangeTenant();
  });

  const openSession = (token: string, key: string, businessId = tenant.businessId) =>
    api('POST', edits('/sessions'), { token, json: { business_id: businessId }, headers: withKey(key) });

  it('opening a session: a retry gets the same session; another body 422; another user independent', async () => {
    const key = randomUUID();
    const first = await openSession(tenant.tokens.owner, key);
    expect(first.status).toBe(201);
    expectReplayOf(await openSession(tenant.tokens.owner, key), first);

    const other = await arrangeTenant();
    expectKeyRefused(await openSession(tenant.tokens.owner, key, other.businessId), 'idempotency_key_reused');

    const theirs = await openSession(other.tokens.owner, key, other.businessId);
    expect(theirs.status).toBe(201);
    expect(theirs.body.data.id).not.toBe(first.body.data.id);
    // The editor of the same business is another caller too.
    const editors = await openSession(tenant.tokens.editor, key);
    expect(editors.status).toBe(201);
    expect(editors.body.data.id).not.toBe(first.body.data.id);
  });

  it('staging a changeset: a retry stages nothing more; another body 422; a bad key 422', async () => {
    const session = (await openSession(tenant.tokens.owner, randomUUID())).body.data;
    const stage = (key: string, question = 'Parking?') =>
      api('POST', edits(`/sessions/${session.id}/changesets`), {
        token: tenant.tokens.owner,
        headers: withKey(key),
        json: {
          items: [{ entity: 'faq', action: 'create', fields: { question, answer: 'Behind the shop.' } }],
        },
      });
    const key = randomUUID();
    const first = await stage(key);
    expect(first.status).toBe(201);
    expectReplayOf(await stage(key), first);
    expectKeyRefused(await stage(key, 'Bikes?'), 'idempotency_key_reused');
    expectKeyRefused(await stage(' '), 'invalid_format');

    const list = await api('GET', edits(`/businesses/${tenant.businessId}/changesets`), {
      token: tenant.tokens.owner,
    });
    expect(list.body.data.map((changeset: { id: string }) => changeset.id)).toEqual([first.body.data.id]);
  });
});

describe('admin invite with Idempotency-Key', () => {
  interface SentMail {
    destination: { to: string[] };
  }
  async function mailsTo(email: string): Promise<number> {
    const store = (await (await fetch(`${inject('harness').credentials.ses_web_url}/store`)).json()) as {
      emails: SentMail[];
    };
    return store.emails.filter((mail) => mail.destination.to.includes(email)).length;
  }
  const invite = (key: string, email: string) =>
    api('POST', '/api/v1/admin/users', {
      token: platformAdminToken(),
      json: { email },
      headers: withKey(key),
    });

  it('a retry gets the first answer and sends no second mail; another body 422', async () => {
    const email = `idem-${randomUUID().slice(0, 8)}@example.com`;
    const key = randomUUID();
    const first = await invite(key, email);
    expect(first.status).toBe(201);
    expect(await mailsTo(email)).toBe(1);
    expectReplayOf(await invite(key, email), first);
    expect(await mailsTo(email)).toBe(1);
    expectKeyRefused(await invite(key, `other-${email}`), 'idempotency_key_reused');
    expectKeyRefused(await invite('k'.repeat(256), email), 'invalid_format');
  });
});
