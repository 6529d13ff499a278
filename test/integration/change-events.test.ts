import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { describe, expect, inject, it } from 'vitest';
import { createAgentKey } from '#lib/auth/agent-keys.ts';
import { dynamo, dynamoClient, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import type { ChangeEvent } from '#lib/events/change-event.ts';
import { PLATFORM_ACTOR } from '#lib/media/photo-writes.ts';
import { agentEntities, type EntityName } from '#lib/records/entities.ts';
import { patchRecord } from '#lib/records/writes/record-writes.ts';
import { agentApi, collectionPath, createRecordVia, itemPath, minimalBodies } from '../support/agents.ts';
import { api } from '../support/api.ts';
import { feedItemsOf } from '../support/feed-items.ts';
import { png } from '../support/images.ts';
import { arrangeTenant } from '../support/tenants.ts';

/**
 * Change events through the real path: a write over HTTP (or, to force an interleaving, in this
 * process), DynamoDB Local's stream, the harness's poller, the publisher in its worker with its
 * role, the feed's items. Every Change History entry and every photo and blog schedule change is
 * exactly one event.
 */
type FeedEntry = { seq: number; event: ChangeEvent };

/** The business's Change History, oldest first. */
async function historyOf(businessId: string) {
  const { Items = [] } = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :history)',
      ExpressionAttributeValues: { ':pk': keys.business(businessId).pk, ':history': 'HISTORY#' },
      ConsistentRead: true,
    }),
  );
  return Items;
}

/** The feed once it holds `count` events (and a moment more, to see any extra one). */
async function settledFeed(businessId: string, count: number): Promise<FeedEntry[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const feed = await feedItemsOf(businessId);
    if (feed.length >= count || Date.now() > deadline) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return feedItemsOf(businessId);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const edits = (path: string) => `/api/v1/edits${path}`;

async function agentTenant() {
  const tenant = await arrangeTenant();
  const { key, record } = await createAgentKey({
    name: 'events',
    businesses: [tenant.businessId],
    scopes: ['read', 'write'],
  });
  return { ...tenant, key, keyId: record.key_id };
}

describe('change events from every write path', () => {
  it('makes each write exactly one event, with the change named but never shown', async () => {
    const tenant = await agentTenant();
    const b = tenant.businessId;
    const agent = (method: string, path: string, json?: object) =>
      agentApi(method, path, tenant.key, { json });

    // Agent writes of every kind: create, replace, update, delete; the two member lists.
    const created: Partial<Record<EntityName, string>> = {};
    for (const definition of agentEntities) {
      const entity = definition.name as Exclude<EntityName, 'profile'>;
      const record = await createRecordVia(tenant, entity);
      created[entity] = record.id;
      expect((await agent('PUT', itemPath(b, entity, record.id), minimalBodies[entity])).status).toBe(200);
      const [field] = Object.keys(minimalBodies[entity]);
      const patch = {
        [field as string]: (minimalBodies[entity] as Record<string, unknown>)[field as string],
      };
      // A PATCH that changes nothing is no change (and no event); one that does is.
      expect((await agent('PATCH', itemPath(b, entity, record.id), patch)).status).toBe(200);
    }
    const members = await agent('PUT', `${itemPath(b, 'package', created.package as string)}/service-items`, {
      service_item_ids: [created.service_item],
    });
    expect(members.status).toBe(200);
    const doomed = await createRecordVia(tenant, 'faq');
    expect((await agent('DELETE', itemPath(b, 'faq', doomed.id))).status).toBe(204);

    // A second primary location demotes the first: the demoted one's change is an event too.
    const primary = await createRecordVia(tenant, 'location', {
      ...minimalBodies.location,
      is_primary: true,
    });
    await createRecordVia(tenant, 'location', {
      ...minimalBodies.location,
      name: 'Second',
      is_primary: true,
    });

    // The edits API: apply (a profile change and a FAQ), revert, undo.
    const token = tenant.tokens.owner;
    const session = (await api('POST', edits('/sessions'), { token, json: { business_id: b } })).body.data.id;
    const staged = await api('POST', edits(`/sessions/${session}/changesets`), {
      token,
      json: {
        summary: 'events',
        items: [
          { entity: 'profile', action: 'update', record_id: 'profile', fields: { tagline: 'Fresh' } },
          { entity: 'faq', action: 'create', fields: { question: 'Staged?', answer: 'Yes' } },
        ],
      },
    });
    expect(staged.status).toBe(201);
    const changeset = staged.body.data;
    expect((await api('POST', edits(`/changesets/${changeset.id}/apply`), { token })).status).toBe(200);
    expect((await api('POST', edits(`/changesets/${changeset.id}/revert`), { token })).status).toBe(200);
    const log = (await api('GET', edits(`/businesses/${b}/change-log`), { token })).body.data;
    const lastAgentUpdate = log.find((entry: { actor: { type: string } }) => entry.actor.type === 'agent');
    const undone = await api('POST', edits(`/businesses/${b}/change-log/${lastAgentUpdate.id}/undo`), {
      token,
    });
    expect(undone.status).toBe(200);

    // The blog schedule: created, unchanged (no event), changed, deleted.
    const schedule = `/api/v1/businesses/${b}/blog_posts/auto_schedule`;
    expect((await api('PUT', schedule, { token, json: { frequency_type: 'weekly' } })).status).toBe(200);
    expect((await api('PUT', schedule, { token, json: { frequency_type: 'weekly' } })).status).toBe(200);
    expect((await api('PUT', schedule, { token, json: { frequency_type: 'daily' } })).status).toBe(200);
    expect((await api('DELETE', schedule, { token })).status).toBe(204);

    // Media: a derived photo imported through the internal API.
    const { addPhoto } = await import('#lib/media/photo-writes.ts');
    const source = await addPhoto({
      businessId: b,
      bytes: png(4, 4),
      contentType: 'image/png',
      source: 'upload',
    });
    const form = new FormData();
    form.append('file', new Blob([png(6, 6)]), 'edited.png');
    form.append('meta', JSON.stringify({ business_id: b, source_asset_id: source.id }));
    const response = await fetch(
      `${inject('harness').baseUrl}/api/v1/internal/media/photos/import-derivative`,
      {
        method: 'POST',
        headers: { 'x-internal-api-key': inject('harness').credentials.internal_api_key },
        body: form,
      },
    );
    const imported = { status: response.status, body: (await response.json()) as { asset_id: string } };
    expect(imported.status).toBe(201);

    const history = await historyOf(b);
    const outboxEvents = 5; // two photos added, the blog schedule created, changed and deleted
    const feed = await settledFeed(b, history.length + outboxEvents);
    expect(feed).toHaveLength(history.length + outboxEvents);
    const ids = feed.map(({ event }) => event.id);
    expect(new Set(ids).size).toBe(ids.length);

    // Each Change History entry is exactly one event, with its fields.
    const byId = new Map(feed.map(({ event }) => [event.id, event]));
    for (const entry of history) {
      const event = byId.get(entry.id as string);
      expect(event, `the event of ${entry.action} ${entry.entity}`).toMatchObject({
        business_id: b,
        entity: entry.entity,
        record_id: entry.record_id,
        change_id: entry.id,
        changeset_id: entry.changeset_id ?? null,
        undo_of: entry.undo_of ?? null,
        revert_of: entry.revert_of ?? null,
        occurred_at: entry.at,
        actor: { kind: (entry.actor as { type: string }).type, id: (entry.actor as { id: string }).id },
      });
      const fields = (entry.action === 'delete' ? entry.before : entry.after) as Record<string, unknown>;
      expect(event?.changed_fields).toEqual(Object.keys(fields ?? {}).sort());
      if (entry.action === 'delete') expect(event?.version).toBeNull();
      else expect(event?.version).toBe(entry.version ?? event?.version);
    }
    // Never a value: none of the written values appears in any event.
    expect(JSON.stringify(feed)).not.toMatch(/Fresh|Staged\?|Hafenstra|Second/);

    const types = feed.map(({ event }) => event.type);
    expect(types.filter((type) => type === 'profile.updated')).toHaveLength(2); // applied, reverted
    expect(types.filter((type) => type === 'photo.added')).toHaveLength(2);
    expect(types.filter((type) => type.startsWith('blog_schedule.'))).toEqual([
      'blog_schedule.updated',
      'blog_schedule.updated',
      'blog_schedule.deleted',
    ]);
    const demoted = feed.find(
      ({ event }) => event.record_id === primary.id && event.changed_fields.join() === 'is_primary',
    );
    expect(demoted?.event).toMatchObject({ type: 'record.updated', version: 2 });
    const photo = feed.find(({ event }) => event.record_id === imported.body.asset_id);
    expect(photo?.event).toMatchObject({
      type: 'photo.added',
      actor: { kind: 'internal', id: 'internal-api' },
    });
    expect(feed.find(({ event }) => event.record_id === source.id)?.event.actor).toEqual(PLATFORM_ACTOR);
    const blog = feed.find(({ event }) => event.type === 'blog_schedule.deleted');
    expect(blog?.event).toMatchObject({ entity: 'blog_schedule', record_id: null, version: null });
    expect(blog?.event.actor.kind).toBe('user');
    // The publisher's positions follow each record's versions.
    expectVersionOrder(feed);
  }, 120_000);

  it('serves the events through the feed, a page one Query beside the key, the same ids on the bus', async () => {
    const tenant = await agentTenant();
    const b = tenant.businessId;
    const faqs = [await createRecordVia(tenant, 'faq'), await createRecordVia(tenant, 'faq')];
    const feed = await settledFeed(b, 2);

    const pages: ChangeEvent[][] = [];
    let after: string | undefined;
    for (let page = 0; page < 3; page += 1) {
      const query = `?limit=1${after ? `&after=${encodeURIComponent(after)}` : ''}`;
      const response = await agentApi('GET', `/api/v1/agent/businesses/${b}/events${query}`, tenant.key);
      expect(response.status).toBe(200);
      expect(Number(response.headers.get('x-local-dynamodb-calls'))).toBe(1);
      expect(Number(response.headers.get('x-local-dynamodb-all-round-trips'))).toBe(1);
      // The page's Query, and the key's GetItem sent beside it (one round trip for both).
      expect(response.headers.get('x-local-dynamodb-operations')?.split(',').sort()).toEqual([
        'GetItem',
        'Query',
      ]);
      expect(Number(response.headers.get('x-local-dynamodb-auth-calls'))).toBe(1);
      pages.push(response.body.data);
      after = response.body.meta.next_cursor;
    }
    expect(pages.map((page) => page.map((event) => event.record_id))).toEqual([
      [faqs[0]?.id],
      [faqs[1]?.id],
      [],
    ]);
    expect(pages.flat()).toEqual(feed.map(({ event }) => event));

    // The publisher puts them on the (local) bus after the feed: the same events, whole, as `detail`.
    const deadline = Date.now() + 10_000;
    let onBus: ChangeEvent[] = [];
    while (Date.now() < deadline) {
      const bus = await fetch(`${inject('harness').baseUrl}/console/dev/events.json`);
      onBus = ((await bus.json()) as { events: { detail: ChangeEvent }[] }).events.map(
        ({ detail }) => detail,
      );
      if (feed.every(({ event }) => onBus.some((sent) => sent.id === event.id))) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (const { event } of feed) expect(onBus).toContainEqual(event);
  });

  it('keeps one event per change and each record in version order under any sequence of agent writes', async () => {
    const tenant = await agentTenant();
    const b = tenant.businessId;
    const faq = await createRecordVia(tenant, 'faq');
    const step = fc.oneof(
      fc.record({ op: fc.constant('patch' as const), answer: fc.string({ minLength: 1, maxLength: 20 }) }),
      fc.record({ op: fc.constant('create' as const), question: fc.string({ minLength: 1, maxLength: 20 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
        await Promise.all(
          steps.map((s) =>
            s.op === 'patch'
              ? agentApi('PATCH', itemPath(b, 'faq', faq.id), tenant.key, { json: { answer: s.answer } })
              : agentApi('POST', collectionPath(b, 'faq'), tenant.key, {
                  json: { question: s.question, answer: 'A' },
                }),
          ),
        );
        const history = await historyOf(b);
        const feed = await settledFeed(b, history.length);
        expect(feed.map(({ event }) => event.id).sort()).toEqual(history.map((entry) => entry.id).sort());
        expectVersionOrder(feed);
      }),
      { numRuns: 5 },
    );
  }, 120_000);

  it('leaves every event of 20 concurrent writers exactly once in the feed, a record in version order', async () => {
    const tenant = await agentTenant();
    const b = tenant.businessId;
    const faq = await createRecordVia(tenant, 'faq');
    const writes = Array.from({ length: 20 }, (_, index) =>
      index % 2 === 0
        ? agentApi('PATCH', itemPath(b, 'faq', faq.id), tenant.key, { json: { answer: `answer ${index}` } })
        : agentApi('POST', collectionPath(b, 'faq'), tenant.key, {
            json: { question: `Q${index}?`, answer: 'A' },
          }),
    );
    const statuses = (await Promise.all(writes)).map((response) => response.status);
    expect(statuses.every((status) => status === 200 || status === 201)).toBe(true);

    const history = await historyOf(b);
    expect(history).toHaveLength(21);
    const feed = await settledFeed(b, 21);
    expect(feed.map(({ event }) => event.id).sort()).toEqual(history.map((entry) => entry.id).sort());
    expect(feed.filter(({ event }) => event.record_id === faq.id).map(({ event }) => event.version)).toEqual(
      Array.from({ length: 11 }, (_, index) => index + 1),
    );
  });

  it('never lets a cursor pass a change that commits after a later-stamped one (forced interleaving)', async () => {
    const tenant = await agentTenant();
    const b = tenant.businessId;
    const [early, late] = [await createRecordVia(tenant, 'faq'), await createRecordVia(tenant, 'faq')];
    const before = await settledFeed(b, 2);

    // Hold this process's transaction after it is stamped, while another write stamps and commits.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const name = 'holdFirstTransactionAfterItsTimestamp';
    let holding = true;
    dynamoClient.middlewareStack.add(
      (next, context) => async (args) => {
        if (holding && context.commandName === 'TransactWriteItemsCommand') {
          holding = false;
          await held;
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      const actor = { type: 'agent' as const, id: tenant.keyId };
      const stampedFirst = patchRecord('faq', b, early.id, { answer: 'stamped first' }, { actor });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const second = await agentApi('PATCH', itemPath(b, 'faq', late.id), tenant.key, {
        json: { answer: 'committed first' },
      });
      expect(second.status).toBe(200);

      // A consumer reads the feed now: it has the later-stamped change; its cursor is that position.
      const seen = await settledFeed(b, 3);
      const cursor = Math.max(...seen.map(({ seq }) => seq));
      release();
      await stampedFirst;

      const after = (await settledFeed(b, 4)).filter(({ seq }) => seq > cursor);
      expect(after).toHaveLength(1);
      const [missed] = after;
      expect(missed?.event).toMatchObject({ record_id: early.id, version: 2 });
      const committedFirst = seen.find(({ event }) => event.record_id === late.id && event.version === 2);
      // Stamped earlier, committed later: a later position, so the consumer's next page has it.
      expect(Date.parse(missed?.event.occurred_at as string)).toBeLessThan(
        Date.parse(committedFirst?.event.occurred_at as string),
      );
      expect(before).toHaveLength(2);
    } finally {
      release();
      dynamoClient.middlewareStack.remove(name);
    }
  });
});

/** Each record's events, in feed order, have rising versions (a delete keeps its place, version null). */
function expectVersionOrder(feed: FeedEntry[]) {
  const last = new Map<string, number>();
  for (const { event } of [...feed].sort((a, b) => a.seq - b.seq)) {
    if (event.version === null || event.record_id === null) continue;
    const key = `${event.entity}/${event.record_id}`;
    expect(event.version, `${key} in version order`).toBeGreaterThan(last.get(key) ?? 0);
    last.set(key, event.version);
  }
}
