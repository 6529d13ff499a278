import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAgentKey } from '#lib/auth/agent-keys.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { agentApi, collectionPath, historyOf, itemPath } from '../support/agents.ts';
import { api } from '../support/api.ts';
import { arrangeTenant, type Tenant } from '../support/tenants.ts';

/**
 * Apply and revert take at most 4 sequential DynamoDB round trips whatever the changeset's size,
 * as the harness counts them for each request (a call that starts after another has answered is
 * one trip later; calls sent together share a trip), with every item's outcome exact and each
 * changeset applied and reverted once.
 */
const edits = (path: string) => `/api/v1/edits${path}`;
const MAX_ROUND_TRIPS = 4;

describe('edits API: round trips of apply and revert', () => {
  let tenant: Tenant;
  let key: string;
  let faqs: string[];

  const openSession = async () =>
    (
      await api('POST', edits('/sessions'), {
        token: tenant.tokens.owner,
        json: { business_id: tenant.businessId },
      })
    ).body.data.id as string;
  const stageAnswers = async (sessionId: string, size: number, answer: string) => {
    const staged = await api('POST', edits(`/sessions/${sessionId}/changesets`), {
      token: tenant.tokens.owner,
      json: {
        items: faqs.slice(0, size).map((id) => ({
          entity: 'faq',
          action: 'update',
          record_id: id,
          fields: { answer },
        })),
      },
    });
    expect(staged.status).toBe(201);
    return staged.body.data as { id: string; items: { id: string }[] };
  };
  const post = (path: string) => api('POST', edits(path), { token: tenant.tokens.owner });
  const roundTrips = (response: { headers: Headers }) =>
    Number(response.headers.get('x-local-dynamodb-round-trips'));
  const storedHeader = async (changesetId: string) =>
    (
      await dynamo.send(
        new GetCommand({ TableName: tableName, Key: keys.changeset(changesetId), ConsistentRead: true }),
      )
    ).Item;

  beforeAll(async () => {
    tenant = await arrangeTenant();
    key = (
      await createAgentKey({
        name: 'round-trips',
        businesses: [tenant.businessId],
        scopes: ['read', 'write'],
      })
    ).key;
    faqs = [];
    for (let i = 0; i < 100; i++) {
      const created = await agentApi('POST', collectionPath(tenant.businessId, 'faq'), key, {
        json: { question: `Q${i}?`, answer: 'initial' },
      });
      faqs.push(created.body.data.id);
    }
  }, 120_000);

  for (const size of [1, 10, 100]) {
    it(`applies and reverts ${size} item(s) in at most ${MAX_ROUND_TRIPS} round trips each`, async () => {
      const sessionId = await openSession();
      const changeset = await stageAnswers(sessionId, size, `size ${size}`);
      // From 10 items: one unticked (skipped) and one whose record moved since staging (a conflict
      // decided from the records as read, settled in the same transactions as the others).
      const skipped = size >= 10 ? 1 : -1;
      const moved = size >= 10 ? 2 : -1;
      if (skipped >= 0) {
        const unticked = await api(
          'PATCH',
          edits(`/changesets/${changeset.id}/items/${changeset.items[skipped]?.id}`),
          { token: tenant.tokens.owner, json: { ticked: false } },
        );
        expect(unticked.status).toBe(200);
      }
      if (moved >= 0) {
        const patched = await agentApi('PATCH', itemPath(tenant.businessId, 'faq', faqs[moved] ?? ''), key, {
          json: { answer: `moved before applying ${size}` },
        });
        expect(patched.status).toBe(200);
      }
      const outcome = (i: number, done: string) =>
        i === skipped ? 'skipped' : i === moved ? 'conflict' : done;

      const applied = await post(`/changesets/${changeset.id}/apply`);

      expect(applied.status).toBe(200);
      expect(applied.body.data.items.map((item: { status: string }) => item.status)).toEqual(
        faqs.slice(0, size).map((_, i) => outcome(i, 'applied')),
      );
      expect(roundTrips(applied)).toBeGreaterThan(0);
      expect(roundTrips(applied)).toBeLessThanOrEqual(MAX_ROUND_TRIPS);

      const reverted = await post(`/changesets/${changeset.id}/revert`);

      expect(reverted.status).toBe(200);
      expect(reverted.body.data.items.map((item: { status: string }) => item.status)).toEqual(
        faqs.slice(0, size).map((_, i) => outcome(i, 'reverted')),
      );
      expect(roundTrips(reverted)).toBeGreaterThan(0);
      expect(roundTrips(reverted)).toBeLessThanOrEqual(MAX_ROUND_TRIPS);
      expect((await storedHeader(changeset.id))?.status).toBe('reverted');
    }, 60_000);
  }

  it('reverts a changeset once under two concurrent reverts, writing history once', async () => {
    const sessionId = await openSession();
    const changeset = await stageAnswers(sessionId, 3, 'concurrent');
    expect((await post(`/changesets/${changeset.id}/apply`)).status).toBe(200);

    const results = await Promise.all([
      post(`/changesets/${changeset.id}/revert`),
      post(`/changesets/${changeset.id}/revert`),
    ]);

    expect(results.map((result) => result.status).sort()).toEqual([200, 409]);
    for (const id of faqs.slice(0, 3)) {
      const reverts = (await historyOf(tenant.businessId, id)).filter(
        (entry) => entry.changeset_id === changeset.id && entry.revert_of,
      );
      expect(reverts).toHaveLength(1);
    }
  });

  it('gives the claim back when the session refuses the apply, so the changeset stays staged', async () => {
    const sessionId = await openSession();
    const changeset = await stageAnswers(sessionId, 2, 'never applied');
    // The session idle for two hours: closed. The claim goes out beside the session's touch.
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.editSession(sessionId),
        UpdateExpression: 'SET last_used_at = :long_ago',
        ExpressionAttributeValues: { ':long_ago': new Date(Date.now() - 2 * 60 * 60 * 1000).toISOString() },
      }),
    );

    const refused = await post(`/changesets/${changeset.id}/apply`);

    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/session is closed/);
    const header = await storedHeader(changeset.id);
    expect(header).toMatchObject({ status: 'staged', claimed_at: null });
    for (const id of faqs.slice(0, 2)) {
      expect((await agentApi('GET', itemPath(tenant.businessId, 'faq', id), key)).body.data.answer).not.toBe(
        'never applied',
      );
    }
  });
});
