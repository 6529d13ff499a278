import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAgentKey } from '#lib/auth/agent-keys.ts';
import type { ChangeEvent, EventType } from '#lib/events/change-event.ts';
import { encodeFeedCursor } from '#lib/events/feed-cursor.ts';
import { eventRoutes } from '#lib/routes/events.ts';
import { agentApi, arrangeAgentTenant, collectionPath } from '../support/agents.ts';
import type { ApiResponse } from '../support/api.ts';
import { appendFeedEvents, changeEvent, lastFeedSeq } from '../support/feed-items.ts';
import { contractProblems } from '../support/openapi-contract.ts';

/**
 * The event feed's read side (docs/events.md, 'The feed'), over HTTP against feed items written
 * straight into the table at real positions of the one sequence (test/support/feed-items.ts).
 * Businesses are fresh ids no writer of the service touches, so their feeds hold exactly what a
 * test put there, whatever else the shared feed holds.
 */
const DAY_MS = 24 * 3600 * 1000;

const businessFeed = (businessId: string) => `/api/v1/agent/businesses/${businessId}/events`;
const ALL = '/api/v1/agent/events';

async function keyFor(businesses: '*' | string[], scopes: ('read' | 'write')[] = ['read']) {
  return (await createAgentKey({ name: 'feed-test', businesses, scopes })).key;
}

/** A fresh business id with events of these types in its feed, and a key that may read it. */
async function businessWith(types: EventType[]) {
  const businessId = randomUUID();
  const events = types.map((type) => changeEvent(businessId, type));
  await appendFeedEvents(events);
  return { businessId, events, key: await keyFor([businessId]) };
}

function expectPage(response: ApiResponse, what = 'page') {
  expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBe(200);
  expect(response.body.success).toBe(true);
  expect(Array.isArray(response.body.data)).toBe(true);
  expect(typeof response.body.meta.next_cursor).toBe('string');
  return { events: response.body.data as ChangeEvent[], cursor: response.body.meta.next_cursor as string };
}

function expectInvalid(response: ApiResponse, parameter: string, what: string) {
  expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBe(422);
  expect(response.body.error.code).toBe('VALIDATION_ERROR');
  expect(response.body.error.details[0].loc.slice(0, 2)).toEqual(['query', parameter]);
}

/** The position a cursor stands for (tests may look inside; callers may not). */
const positionOf = (cursor: string | undefined) =>
  cursor === undefined
    ? 0
    : Number(JSON.parse(Buffer.from(cursor.split('.')[0] ?? '', 'base64url').toString('utf8')).seq);

/**
 * Every event from `query` on, page by page, until a page past the end: an empty page whose
 * cursor stays where it was (a page of filtered events is empty too, but moves on).
 */
async function follow(path: string, key: string, query: Record<string, string>) {
  const events: ChangeEvent[] = [];
  let cursor = query.after;
  for (let pages = 1; pages <= 200; pages++) {
    const params = new URLSearchParams({ ...query, ...(cursor ? { after: cursor } : {}) });
    const page = expectPage(await agentApi('GET', `${path}?${params}`, key));
    events.push(...page.events);
    const ended = page.events.length === 0 && positionOf(page.cursor) === positionOf(cursor);
    cursor = page.cursor;
    if (ended) return { events, cursor, pages };
  }
  throw new Error('the feed did not end within 200 pages');
}

describe("a business's feed", () => {
  it('pages oldest first with an exclusive cursor, ends with an empty page and a cursor to poll with', async () => {
    const { businessId, events, key } = await businessWith([
      'record.created',
      'record.updated',
      'photo.added',
      'blog_schedule.updated',
      'record.deleted',
    ]);

    const first = expectPage(await agentApi('GET', `${businessFeed(businessId)}?limit=2`, key), 'first');
    const second = expectPage(
      await agentApi('GET', `${businessFeed(businessId)}?limit=2&after=${first.cursor}`, key),
      'second',
    );
    const third = expectPage(
      await agentApi('GET', `${businessFeed(businessId)}?limit=2&after=${second.cursor}`, key),
      'third',
    );
    const past = expectPage(
      await agentApi('GET', `${businessFeed(businessId)}?limit=2&after=${third.cursor}`, key),
      'past the end',
    );

    expect(first.events).toEqual(events.slice(0, 2));
    // A page of events, and a 410, are as the OpenAPI document describes them.
    const documented = await agentApi('GET', `${businessFeed(businessId)}?limit=5`, key);
    const old = await encodeFeedCursor({ seq: 0, since: new Date(Date.now() - 40 * DAY_MS) });
    const gone = await agentApi('GET', `${ALL}?after=${old}`, key);
    for (const [route, response] of [
      [eventRoutes.listBusinessEvents, documented],
      [eventRoutes.listEvents, gone],
    ] as const) {
      const observed = {
        status: response.status,
        headers: response.headers,
        text: JSON.stringify(response.body),
      };
      expect(contractProblems(route, observed)).toEqual([]);
    }
    expect(second.events).toEqual(events.slice(2, 4));
    expect(third.events).toEqual(events.slice(4));
    expect(past.events).toEqual([]);

    // Polling past the end: the same empty page until something happens, then exactly that.
    const again = expectPage(await agentApi('GET', `${businessFeed(businessId)}?after=${past.cursor}`, key));
    expect(again.events).toEqual([]);
    const later = changeEvent(businessId, 'profile.updated');
    await appendFeedEvents([later]);
    const polled = expectPage(
      await agentApi('GET', `${businessFeed(businessId)}?after=${again.cursor}`, key),
    );
    expect(polled.events).toEqual([later]);
    // The earlier cursors still work and still start where they did.
    const replay = expectPage(
      await agentApi('GET', `${businessFeed(businessId)}?after=${second.cursor}`, key),
    );
    expect(replay.events).toEqual([...events.slice(4), later]);
  });

  it('starts at the oldest event kept without a cursor, and skips events past their expiry', async () => {
    const businessId = randomUUID();
    const expired = changeEvent(businessId, 'record.created');
    const kept = changeEvent(businessId, 'record.updated');
    await appendFeedEvents([expired], {
      publishedAt: new Date(Date.now() - 32 * DAY_MS),
      expiresAtEpoch: Math.floor(Date.now() / 1000) - 60,
    });
    await appendFeedEvents([kept]);
    const key = await keyFor([businessId]);

    const page = expectPage(await agentApi('GET', businessFeed(businessId), key));
    expect(page.events).toEqual([kept]);

    // A page of only expired events still moves on, with a cursor that can be followed.
    const one = expectPage(await agentApi('GET', `${businessFeed(businessId)}?limit=1`, key));
    expect(one.events).toEqual([]);
    const next = expectPage(
      await agentApi('GET', `${businessFeed(businessId)}?limit=1&after=${one.cursor}`, key),
    );
    expect(next.events).toEqual([kept]);
  });

  it('filters by types, and moves its cursor past the events it does not show', async () => {
    const { businessId, events, key } = await businessWith([
      'record.created',
      'photo.added',
      'record.updated',
      'blog_schedule.deleted',
      'photo.added',
      'record.deleted',
    ]);

    const page = expectPage(
      await agentApi('GET', `${businessFeed(businessId)}?types=photo.added,blog_schedule.deleted`, key),
    );
    expect(page.events).toEqual([events[1], events[3], events[4]]);

    // One event a page: pages of other types are empty, yet the cursor gets through to the end.
    const followed = await follow(businessFeed(businessId), key, { limit: '1', types: 'record.deleted' });
    expect(followed.events).toEqual([events[5]]);
    expect(followed.pages).toBeGreaterThanOrEqual(6);
  });

  it('takes limits from 1 to 500 and refuses others (422 naming limit)', async () => {
    const { businessId, events, key } = await businessWith(['record.created', 'record.updated']);

    expect(expectPage(await agentApi('GET', `${businessFeed(businessId)}?limit=1`, key)).events).toEqual([
      events[0],
    ]);
    expect(expectPage(await agentApi('GET', `${businessFeed(businessId)}?limit=500`, key)).events).toEqual(
      events,
    );
    for (const limit of ['0', '501', 'abc', '1.5', '-1', '']) {
      expectInvalid(await agentApi('GET', `${businessFeed(businessId)}?limit=${limit}`, key), 'limit', limit);
      expectInvalid(await agentApi('GET', `${ALL}?limit=${limit}`, key), 'limit', `all: ${limit}`);
    }
  });

  it('refuses a cursor it did not give out (422 naming after) and unknown types (422 naming types)', async () => {
    const tenant = await arrangeAgentTenant();
    const key = await keyFor([tenant.businessId]);
    const path = businessFeed(tenant.businessId);
    const given = expectPage(await agentApi('GET', `${path}?limit=1`, key)).cursor;
    const [payload, mac] = given.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, string>;
    const forged = Buffer.from(JSON.stringify({ ...decoded, seq: '0000000000000007' })).toString('base64url');
    const listCursor = (
      await agentApi('GET', `${collectionPath(tenant.businessId, 'faq')}?limit=1`, tenant.key)
    ).body.meta.next_cursor;

    const refusedCursors = [
      'garbage',
      '',
      'a.b',
      `${forged}.${mac}`,
      `${payload}.${mac}x`,
      given.toUpperCase(),
    ];
    if (typeof listCursor === 'string') refusedCursors.push(listCursor);
    for (const after of refusedCursors) {
      expectInvalid(await agentApi('GET', `${path}?after=${encodeURIComponent(after)}`, key), 'after', after);
      expectInvalid(await agentApi('GET', `${ALL}?after=${encodeURIComponent(after)}`, key), 'after', after);
    }
    for (const types of [
      'nope',
      'record.created,',
      'RECORD.CREATED',
      '',
      'record.created,,photo.added',
      'record',
    ]) {
      expectInvalid(await agentApi('GET', `${path}?types=${encodeURIComponent(types)}`, key), 'types', types);
      expectInvalid(await agentApi('GET', `${ALL}?types=${encodeURIComponent(types)}`, key), 'types', types);
    }
    expectInvalid(await agentApi('GET', `${path}?cursor=${given}`, key), 'cursor', 'the lists’ parameter');
  });

  it('answers 410 to a cursor past the 30 days the feed keeps events, and follows a younger one', async () => {
    const { businessId, events, key } = await businessWith(['record.created']);
    const before = (await lastFeedSeq()) - 1;
    const old = await encodeFeedCursor({ seq: before, since: new Date(Date.now() - 31 * DAY_MS) });
    const young = await encodeFeedCursor({ seq: before, since: new Date(Date.now() - 29 * DAY_MS) });

    for (const path of [businessFeed(businessId), ALL]) {
      const gone = await agentApi('GET', `${path}?after=${old}`, key);
      expect(gone.status, JSON.stringify(gone.body)).toBe(410);
      expect(gone.body.error.code).toBe('GONE');
      expect(gone.body.error.message).toMatch(/more than 30 days old/);
      expect(gone.body.error.message).toMatch(/without `after`/);
    }
    expect(
      expectPage(await agentApi('GET', `${businessFeed(businessId)}?after=${young}`, key)).events,
    ).toEqual(events);
  });

  it('reads a business whose id comes in upper case', async () => {
    const { businessId, events, key } = await businessWith(['record.created']);
    expect(expectPage(await agentApi('GET', businessFeed(businessId.toUpperCase()), key)).events).toEqual(
      events,
    );
  });
});

describe('the feed of every business the key may read', () => {
  const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
  let start: string;
  let written: ChangeEvent[];

  beforeAll(async () => {
    start = await encodeFeedCursor({ seq: await lastFeedSeq(), since: new Date() });
    written = [
      changeEvent(a, 'record.created'),
      changeEvent(c, 'record.created'),
      changeEvent(b, 'photo.added'),
      changeEvent(a, 'record.updated'),
      changeEvent(c, 'photo.deleted'),
      changeEvent(b, 'blog_schedule.updated'),
      changeEvent(a, 'record.deleted'),
    ];
    await appendFeedEvents(written);
  });

  it("gives a '*' key every business's events, in the one order", async () => {
    const key = await keyFor('*');
    const followed = await follow(ALL, key, { after: start, limit: '3' });
    const mine = new Set<string>([a, b, c]);
    expect(followed.events.filter((event) => mine.has(event.business_id))).toEqual(written);
  });

  it('gives a key of two businesses theirs and nothing of a third', async () => {
    const key = await keyFor([a, b]);
    const followed = await follow(ALL, key, { after: start, limit: '2' });
    expect(followed.events).toEqual(written.filter((event) => event.business_id !== c));

    const filtered = await follow(ALL, key, { after: start, types: 'photo.added,photo.deleted' });
    expect(filtered.events).toEqual(
      written.filter((event) => event.business_id === b && event.type === 'photo.added'),
    );

    const third = await agentApi('GET', businessFeed(c), key);
    expect(third.status).toBe(403);
    expect(third.body.error.code).toBe('FORBIDDEN');
  });

  it("takes a business feed's cursor: a position is the same in every feed", async () => {
    const key = await keyFor([a, b]);
    const ofA = expectPage(await agentApi('GET', `${businessFeed(a)}?after=${start}&limit=1`, key));
    expect(ofA.events).toEqual([written[0]]);
    const rest = await follow(ALL, key, { after: ofA.cursor });
    expect(rest.events).toEqual(written.slice(1).filter((event) => event.business_id !== c));
  });
});

describe('who may read the feed', () => {
  it('refuses a request without an agent key (401) and a key without the read scope (403)', async () => {
    const businessId = randomUUID();
    const writeOnly = await keyFor([businessId], ['write']);
    const everywhereWriteOnly = await keyFor('*', ['write']);

    for (const path of [businessFeed(businessId), ALL]) {
      for (const query of ['', '?after=garbage&limit=0&types=nope']) {
        const anonymous = await agentApi('GET', `${path}${query}`, undefined);
        expect(anonymous.status).toBe(401);
        expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
      }
      for (const key of [writeOnly, everywhereWriteOnly]) {
        const refused = await agentApi('GET', path, key);
        expect(refused.status, path).toBe(403);
        expect(refused.body.error.message).toMatch(/'read' scope/);
      }
    }
  });

  it('refuses a key of another business (403), before it looks at the cursor', async () => {
    const { businessId } = await businessWith(['record.created']);
    const other = await keyFor([randomUUID()]);
    for (const query of ['', '?after=garbage']) {
      const refused = await agentApi('GET', `${businessFeed(businessId)}${query}`, other);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('FORBIDDEN');
      expect(JSON.stringify(refused.body)).not.toContain(businessId);
    }
  });
});
