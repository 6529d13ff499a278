import { randomUUID } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { dynamo, dynamoClient, tableName } from '#lib/db/client.ts';
import { MAX_PAGE_CALLS } from '#lib/db/filled-page.ts';
import { keys } from '#lib/db/keys.ts';
import { listChangesets } from '#lib/edits/changeset-list.ts';
import { api } from '../support/api.ts';
import { arrangeTenant, type Tenant } from '../support/tenants.ts';

/**
 * `GET …/changesets?status=…` pages through the business's changesets newest first, keeping those
 * of the status: a page holds `limit` of them unless there are no more, however many changesets of
 * other statuses lie between, and carries a cursor only when more follow.
 */
const edits = (path: string) => `/api/v1/edits${path}`;

interface Page {
  ids: string[];
  statuses: string[];
  cursor: string | null;
  operations: string;
}

/** A fresh business, its owner, and an edit session of the owner's on it. */
interface Business {
  tenant: Tenant;
  sessionId: string;
}

async function arrangeBusiness(): Promise<Business> {
  const tenant = await arrangeTenant();
  const opened = await api('POST', edits('/sessions'), {
    token: tenant.tokens.owner,
    json: { business_id: tenant.businessId },
  });
  expect(opened.status).toBe(201);
  return { tenant, sessionId: opened.body.data.id };
}

async function stage({ tenant, sessionId }: Business, question: string): Promise<string> {
  const staged = await api('POST', edits(`/sessions/${sessionId}/changesets`), {
    token: tenant.tokens.owner,
    json: { items: [{ entity: 'faq', action: 'create', fields: { question, answer: 'A' } }] },
  });
  expect(staged.status).toBe(201);
  return staged.body.data.id;
}

async function stageAndApply(business: Business, question: string): Promise<string> {
  const id = await stage(business, question);
  const applied = await api('POST', edits(`/changesets/${id}/apply`), {
    token: business.tenant.tokens.owner,
  });
  expect(applied.status).toBe(200);
  return id;
}

/** Every page of the list, following each cursor, as a client would. */
async function pages({ tenant }: Business, query: string): Promise<Page[]> {
  const all: Page[] = [];
  let cursor: string | null = null;
  do {
    const after: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const response = await api('GET', edits(`/businesses/${tenant.businessId}/changesets?${query}${after}`), {
      token: tenant.tokens.owner,
    });
    expect(response.status).toBe(200);
    cursor = response.body.meta.next_cursor;
    all.push({
      ids: response.body.data.map((changeset: { id: string }) => changeset.id),
      statuses: response.body.data.map((changeset: { status: string }) => changeset.status),
      cursor,
      // Sorted: calls sent together may be counted in either order.
      operations: (response.headers.get('x-local-dynamodb-operations') ?? '').split(',').sort().join(','),
    });
  } while (cursor && all.length < 50);
  return all;
}

describe('listing changesets by status', () => {
  it('fills every page with the status asked for, and ends with the last one of them', async () => {
    // Prepare, oldest first: staged, three applied, staged, one being applied, two applied, discarded.
    const business = await arrangeBusiness();
    const firstStaged = await stage(business, 'First staged?');
    const applied = [];
    for (const question of ['A1?', 'A2?', 'A3?']) applied.push(await stageAndApply(business, question));
    const secondStaged = await stage(business, 'Second staged?');
    const beingApplied = await stage(business, 'Being applied?');
    // An apply in flight holds its claim (`applying`); the changeset still shows, and lists, as staged.
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.changeset(beingApplied),
        UpdateExpression: 'SET #status = :applying, claimed_at = :now',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':applying': 'applying', ':now': new Date().toISOString() },
      }),
    );
    for (const question of ['A4?', 'A5?']) applied.push(await stageAndApply(business, question));
    const discarded = await stage(business, 'Discarded?');
    const discard = await api('POST', edits(`/changesets/${discarded}/discard`), {
      token: business.tenant.tokens.owner,
    });
    expect(discard.status).toBe(200);

    // Act
    const staged = await pages(business, 'status=staged&limit=1');
    const appliedPages = await pages(business, 'status=applied&limit=2');
    const discardedPages = await pages(business, 'status=discarded&limit=1');

    // Assess: newest first, each page full but the last, a cursor exactly when more follow.
    expect(staged.map((page) => page.ids)).toEqual([[beingApplied], [secondStaged], [firstStaged]]);
    expect(staged.flatMap((page) => page.statuses)).toEqual(['staged', 'staged', 'staged']);
    expect(staged.map((page) => page.cursor === null)).toEqual([false, false, true]);
    expect(appliedPages.map((page) => page.ids)).toEqual([
      [applied[4], applied[3]],
      [applied[2], applied[1]],
      [applied[0]],
    ]);
    expect(appliedPages.map((page) => page.cursor === null)).toEqual([false, false, true]);
    expect(discardedPages).toEqual([
      expect.objectContaining({ ids: [discarded], cursor: null, operations: 'BatchGetItem,Query' }),
    ]);
    // Each page was one Query beside the access check.
    for (const page of [...staged, ...appliedPages]) expect(page.operations).toBe('BatchGetItem,Query');
    // Without a status, the same list in one page.
    const everything = await pages(business, 'limit=100');
    expect(everything).toHaveLength(1);
    expect(everything[0]?.ids).toHaveLength(9);
  });

  it('finds a staged changeset under more changesets of other statuses than one Query examines', async () => {
    // Prepare: a staged changeset, then 120 applied ones written straight to the table (each a
    // whole header, as staging and applying leave it), newer than it.
    const business = await arrangeBusiness();
    const businessId = business.tenant.businessId;
    const staged = await stage(business, 'Under the pile?');
    const base = Date.now() + 1000;
    await Promise.all(
      Array.from({ length: 120 }, (_, i) => {
        const id = randomUUID();
        const createdAt = new Date(base + i).toISOString();
        return dynamo.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...keys.changeset(id),
              ...keys.changesetOrder(businessId, createdAt, id),
              id,
              business_id: businessId,
              session_id: business.sessionId,
              opened_by: 'someone',
              summary: null,
              status: 'applied',
              created_at: createdAt,
              applied_at: createdAt,
              reverted_at: null,
              discarded_at: null,
            },
          }),
        );
      }),
    );

    // Act
    const found = await pages(business, 'status=staged&limit=1');

    // Assess: one page, the staged changeset, no cursor; the first Query examined 50, the next 400.
    expect(found).toEqual([
      expect.objectContaining({ ids: [staged], cursor: null, operations: 'BatchGetItem,Query,Query' }),
    ]);
  });
});

describe('a page that meets nothing but other statuses for MAX_PAGE_CALLS calls', () => {
  const ANSWER = 'answerNothingMatches';
  afterEach(() => {
    dynamoClient.middlewareStack.remove(ANSWER);
  });

  it('answers what it found (nothing) with a cursor that goes on from where it stopped', async () => {
    // A business with tens of thousands of changesets none of which match, stood in for by a
    // middleware: each Query examined its Limit of items, matched none, and stopped at a key.
    const businessId = randomUUID();
    const gsi1pk = keys.changesetOrder(businessId, '', '').gsi1pk;
    const starts: unknown[] = [];
    const stops: unknown[] = [];
    dynamoClient.middlewareStack.add(
      (_next, context) => async (args) => {
        if (context.commandName !== 'QueryCommand') return _next(args);
        const input = args.input as { ExclusiveStartKey?: Record<string, AttributeValue>; Limit: number };
        starts.push(input.ExclusiveStartKey && unmarshall(input.ExclusiveStartKey));
        const id = randomUUID();
        // Past the document client's marshalling: the key arrives marshalled, the answer is plain.
        const stop = {
          pk: `CHANGESET#${id}`,
          sk: 'CHANGESET',
          gsi1pk,
          gsi1sk: `2020-01-01T00:00:00.000Z#${id}`,
        };
        stops.push(stop);
        return {
          response: {},
          output: { $metadata: {}, Items: [], Count: 0, ScannedCount: input.Limit, LastEvaluatedKey: stop },
        };
      },
      { step: 'build', name: ANSWER },
    );

    const first = await listChangesets(businessId, { limit: 1, status: 'staged' });
    expect(starts).toHaveLength(MAX_PAGE_CALLS);
    expect(first.changesets).toEqual([]);
    expect(first.nextCursor).toEqual(expect.any(String));

    await listChangesets(businessId, { limit: 1, status: 'staged', cursor: first.nextCursor as string });
    // The next page starts where the first one's last Query stopped.
    expect(starts[MAX_PAGE_CALLS]).toEqual(stops[MAX_PAGE_CALLS - 1]);
    expect(starts).toHaveLength(2 * MAX_PAGE_CALLS);
  });
});
