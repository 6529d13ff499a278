import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { createAgentKey } from '#lib/auth/agent-keys.ts';
import type { UserPrincipal } from '#lib/auth/principal.ts';
import { dynamo, dynamoClient, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { applyChangeset } from '#lib/edits/apply.ts';
import { revertChangeset } from '#lib/edits/revert.ts';
import { attachUsageCounter, countDynamoUsage } from '../../infra/local/dynamodb-usage.ts';
import { agentApi, collectionPath, historyOf } from '../support/agents.ts';
import { api } from '../support/api.ts';
import { arrangeTenant, type Tenant } from '../support/tenants.ts';

/**
 * Apply and revert commit several items per transaction and several transactions at once; every
 * item still gets its own outcome, atomic with its history entry and status, also when some
 * items' conditions fail inside a transaction that carries others.
 */
const edits = (path: string) => `/api/v1/edits${path}`;
const ITEMS = 100;

// This process's DynamoDB client counts its calls as the harness's function workers do.
attachUsageCounter(dynamoClient);

describe('edits API: apply and revert of 100 items', () => {
  let tenant: Tenant;
  let sessionId: string;
  let faqs: string[];

  beforeEach(async () => {
    tenant = await arrangeTenant();
    const { key } = await createAgentKey({
      name: 'batched',
      businesses: [tenant.businessId],
      scopes: ['read', 'write'],
    });
    faqs = [];
    for (let i = 0; i < ITEMS; i++) {
      const created = await agentApi('POST', collectionPath(tenant.businessId, 'faq'), key, {
        json: { question: `Q${i}?`, answer: 'initial' },
      });
      faqs.push(created.body.data.id);
    }
    const opened = await api('POST', edits('/sessions'), {
      token: tenant.tokens.owner,
      json: { business_id: tenant.businessId },
    });
    sessionId = opened.body.data.id;
  }, 120_000);

  const stageAnswers = async (answer: (i: number) => string) => {
    const staged = await api('POST', edits(`/sessions/${sessionId}/changesets`), {
      token: tenant.tokens.owner,
      json: {
        items: faqs.map((id, i) => ({
          entity: 'faq',
          action: 'update',
          record_id: id,
          fields: { answer: answer(i) },
        })),
      },
    });
    expect(staged.status).toBe(201);
    return staged.body.data.id as string;
  };
  const stored = async (id: string) =>
    (
      await dynamo.send(
        new GetCommand({
          TableName: tableName,
          Key: keys.record(tenant.businessId, 'faq', id),
          ConsistentRead: true,
        }),
      )
    ).Item as Record<string, unknown>;
  const answers = async () => Promise.all(faqs.map(async (id) => (await stored(id)).answer));

  it('applies and reverts 100 items, each with its history entry, in a few transactions', async () => {
    const changeset = await stageAnswers((i) => `new ${i}`);

    const applied = await api('POST', edits(`/changesets/${changeset}/apply`), {
      token: tenant.tokens.owner,
    });

    expect(applied.status).toBe(200);
    expect(applied.body.data.counts).toMatchObject({ applied: ITEMS, conflict: 0 });
    expect(applied.body.data.items.every((item: { outcome: unknown }) => item.outcome !== null)).toBe(true);
    expect(await answers()).toEqual(faqs.map((_, i) => `new ${i}`));
    // Fixed: the changeset; the session touch, the access check and the 100 records (104 keys:
    // two BatchGetItem calls) and the claim, sent together; the final status. Then 100 items of 3
    // actions in transactions of at most 100 actions: 4, sent together.
    expect(Number(applied.headers.get('x-local-dynamodb-calls'))).toBe(6 + 4);
    expect(Number(applied.headers.get('x-local-dynamodb-round-trips'))).toBe(4);

    const reverted = await api('POST', edits(`/changesets/${changeset}/revert`), {
      token: tenant.tokens.owner,
    });

    expect(reverted.status).toBe(200);
    expect(reverted.body.data.counts).toMatchObject({ reverted: ITEMS, revert_conflict: 0 });
    expect(await answers()).toEqual(faqs.map(() => 'initial'));
    expect(Number(reverted.headers.get('x-local-dynamodb-calls'))).toBe(6 + 4);
    for (const id of [faqs[0], faqs[50], faqs[99]]) {
      const history = await historyOf(tenant.businessId, id ?? '');
      expect(history.map((entry) => entry.action)).toEqual(['create', 'update', 'update']);
      expect(history[1]).toMatchObject({ changeset_id: changeset, after: { answer: expect.any(String) } });
      expect(history[2]).toMatchObject({ changeset_id: changeset, after: { answer: 'initial' } });
      expect((await stored(id ?? '')).version).toBe(3);
    }
  }, 60_000);

  it('settles the items whose records move mid-batch on their own, and commits the rest', async () => {
    // Records that move between the apply's read and its transactions: an answer changed (the item
    // conflicts) or only the question (the item still applies, from a fresh read).
    const answerMoved = [3, 40, 77];
    const questionMoved = [10, 41, 90];
    const changeset = await stageAnswers((i) => `new ${i}`);
    const owner = await ownerPrincipal(changeset);

    // Called in this process, so that the records move exactly when the first transaction leaves.
    const moving = beforeFirstTransaction(() => moveRecords(answerMoved, questionMoved, 'agent'));
    const { result: applied, usage } = await countDynamoUsage(() => applyChangeset(owner, changeset));
    moving.remove();

    expect(moving.ran()).toBe(true);
    expect(applied.items.map((item) => item.status)).toEqual(
      faqs.map((_, i) => (answerMoved.includes(i) ? 'conflict' : 'applied')),
    );
    expect(applied.items[40]?.outcome).toMatchObject({
      fields: [{ field: 'answer', staged_before: 'initial', current: 'agent' }],
    });
    expect(await answers()).toEqual(faqs.map((_, i) => (answerMoved.includes(i) ? 'agent' : `new ${i}`)));
    // More calls than the 10 of an undisturbed apply: the refused transactions, sent again without
    // the moved items, and each moved item read and settled alone.
    expect(usage.calls).toBeGreaterThan(10);
    for (const [i, entries] of [
      [3, 1],
      [10, 2],
      [11, 2],
    ] as const) {
      // Created, then applied (unless it conflicted); the direct moves write no history.
      expect(await historyOf(tenant.businessId, faqs[i] ?? '')).toHaveLength(entries);
    }
    // What the caller was answered is what is stored.
    const stored = await api('GET', edits(`/changesets/${changeset}`), { token: tenant.tokens.owner });
    expect(stored.body.data.items.map((item: { status: string }) => item.status)).toEqual(
      applied.items.map((item) => item.status),
    );
    expect(stored.body.data.status).toBe('applied');

    const revertAnswerMoved = [5, 60];
    const revertMoving = beforeFirstTransaction(() => moveRecords(revertAnswerMoved, [6, 61], 'agent again'));
    const reverted = await revertChangeset(owner, changeset);
    revertMoving.remove();

    expect(revertMoving.ran()).toBe(true);
    expect(reverted.items.map((item) => item.status)).toEqual(
      faqs.map((_, i) =>
        answerMoved.includes(i) ? 'conflict' : revertAnswerMoved.includes(i) ? 'revert_conflict' : 'reverted',
      ),
    );
    expect(await answers()).toEqual(
      faqs.map((_, i) =>
        answerMoved.includes(i) ? 'agent' : revertAnswerMoved.includes(i) ? 'agent again' : 'initial',
      ),
    );
  }, 120_000);

  /** The owner as the edits API sees them once signed in: the user who staged the changeset. */
  async function ownerPrincipal(changesetId: string): Promise<UserPrincipal> {
    const { Item } = await dynamo.send(
      new GetCommand({ TableName: tableName, Key: keys.changeset(changesetId), ConsistentRead: true }),
    );
    return {
      kind: 'user',
      userId: String(Item?.opened_by),
      issuer: 'test',
      subject: 'owner',
      email: tenant.emails.owner,
      emailVerified: true,
    };
  }

  /**
   * Run `work` when this process's first TransactWriteItems is about to be sent (every transaction
   * of that wave waits for it): between the apply's reads and its writes.
   */
  function beforeFirstTransaction(work: () => Promise<unknown>) {
    const name = `beforeFirstTransaction-${randomUUID()}`;
    let running: Promise<unknown> | undefined;
    dynamoClient.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'TransactWriteItemsCommand') {
          running ??= work();
          await running;
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
    return { ran: () => running !== undefined, remove: () => dynamoClient.middlewareStack.remove(name) };
  }

  /** Change records behind the service's back, bumping their versions as a write would. */
  async function moveRecords(answerMoved: number[], questionMoved: number[], answer: string) {
    const move = (i: number, field: 'answer' | 'question', value: string) =>
      dynamo.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.record(tenant.businessId, 'faq', faqs[i] ?? ''),
          UpdateExpression: 'SET #field = :value, #version = #version + :one',
          ExpressionAttributeNames: { '#field': field, '#version': 'version' },
          ExpressionAttributeValues: { ':value': value, ':one': 1 },
        }),
      );
    await Promise.all([
      ...answerMoved.map((i) => move(i, 'answer', answer)),
      ...questionMoved.map((i) => move(i, 'question', `moved ${i}?`)),
    ]);
  }
});
