import { describe, expect, inject, it } from 'vitest';
import { agentEntities } from '#lib/records/entities.ts';
import {
  type AgentTenant,
  agentApi,
  arrangeAgentTenant,
  collectionPath,
  createRecordVia,
} from '../support/agents.ts';
import { type ApiResponse, api } from '../support/api.ts';
import { arrangeTenant } from '../support/tenants.ts';

/**
 * Every paged list answers 422 (its documented validation error) to a cursor it did not give out
 * for this very query: forged, altered, or issued for another business, list or filter. A forged
 * key must never reach DynamoDB, where it would fail as a 500.
 */
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Cursors in the shapes this service once gave out, and one whose key is empty. */
const FORGED = [
  encode(['', 'RECORD#faq#x']),
  encode(['', 'CHANGESET#x']),
  Buffer.from('HISTORY#').toString('base64url'),
  encode({ q: 'media-businesses', k: { pk: '', sk: '', gsi1pk: 'MEDIA_BUSINESSES', gsi1sk: '' } }),
  'not-a-cursor',
];

/** The same cursor with its payload replaced: the mac no longer matches. */
function altered(cursor: string): string {
  const [payload, mac] = cursor.split('.') as [string, string];
  const key = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, string>;
  return `${encode({ ...key, sk: `${key.sk}0` })}.${mac}`;
}

function expectRefused(response: ApiResponse, what: string) {
  expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBe(422);
  expect(response.body.success).toBe(false);
  expect(response.body.error.code).toBe('VALIDATION_ERROR');
  expect(response.body.error.details[0].loc).toEqual(['query', 'cursor']);
}

async function twoOf(
  tenant: { businessId: string; key: string },
  entity: (typeof agentEntities)[number]['name'],
) {
  await createRecordVia(tenant, entity);
  await createRecordVia(tenant, entity);
}

describe('list cursors', () => {
  it.each(agentEntities.map((definition) => [definition.name]))(
    'agent list of %s: follows its own cursor and refuses any other (422)',
    async (entity) => {
      const tenant: AgentTenant = await arrangeAgentTenant();
      const other = { businessId: tenant.other.businessId, key: tenant.other.key };
      await Promise.all([twoOf(tenant, entity), twoOf(other, entity)]);
      const list = (who: { businessId: string; key: string }, query: string) =>
        agentApi('GET', `${collectionPath(who.businessId, entity)}?${query}`, who.key);
      const mine = (await list(tenant, 'limit=1')).body.meta.next_cursor as string;
      const theirs = (await list(other, 'limit=1')).body.meta.next_cursor as string;
      const anotherList = agentEntities.find((definition) => definition.name !== entity)?.name ?? 'faq';
      await createRecordVia(tenant, anotherList);
      await createRecordVia(tenant, anotherList);
      const ofAnotherList = (
        await agentApi('GET', `${collectionPath(tenant.businessId, anotherList)}?limit=1`, tenant.key)
      ).body.meta.next_cursor as string;

      const next = await list(tenant, `limit=1&cursor=${mine}`);
      expect(next.status).toBe(200);
      expect(next.body.data).toHaveLength(1);

      for (const cursor of [...FORGED, theirs, ofAnotherList, altered(mine)]) {
        expectRefused(await list(tenant, `cursor=${encodeURIComponent(cursor)}`), cursor);
      }
    },
  );

  it('edits changesets and change log: follow their own cursors and refuse any other (422)', async () => {
    const tenant = await arrangeTenant();
    const other = await arrangeTenant();
    const edits = (path: string) => `/api/v1/edits${path}`;
    const stageTwo = async (businessId: string, token: string) => {
      const session = await api('POST', edits('/sessions'), { token, json: { business_id: businessId } });
      for (const question of ['One?', 'Two?']) {
        const staged = await api('POST', edits(`/sessions/${session.body.data.id}/changesets`), {
          token,
          json: { items: [{ entity: 'faq', action: 'create', fields: { question, answer: 'A' } }] },
        });
        expect(staged.status).toBe(201);
        await api('POST', edits(`/changesets/${staged.body.data.id}/apply`), { token });
      }
    };
    await Promise.all([
      stageTwo(tenant.businessId, tenant.tokens.owner),
      stageTwo(other.businessId, other.tokens.owner),
    ]);
    const get = (businessId: string, token: string, list: string, query: string) =>
      api('GET', edits(`/businesses/${businessId}/${list}?${query}`), { token });

    for (const list of ['changesets', 'change-log']) {
      const mine = (await get(tenant.businessId, tenant.tokens.owner, list, 'limit=1')).body.meta
        .next_cursor as string;
      const theirs = (await get(other.businessId, other.tokens.owner, list, 'limit=1')).body.meta
        .next_cursor as string;
      const otherList = list === 'changesets' ? 'change-log' : 'changesets';
      const ofOtherList = (await get(tenant.businessId, tenant.tokens.owner, otherList, 'limit=1')).body.meta
        .next_cursor as string;

      const next = await get(tenant.businessId, tenant.tokens.owner, list, `limit=1&cursor=${mine}`);
      expect(next.status, list).toBe(200);
      expect(next.body.data).toHaveLength(1);

      for (const cursor of [...FORGED, theirs, ofOtherList, altered(mine)]) {
        const response = await get(
          tenant.businessId,
          tenant.tokens.owner,
          list,
          `cursor=${encodeURIComponent(cursor)}`,
        );
        expectRefused(response, `${list} ${cursor}`);
      }
    }

    // A changesets cursor is bound to its status filter too.
    const applied = (
      await get(tenant.businessId, tenant.tokens.owner, 'changesets', 'limit=1&status=applied')
    ).body.meta.next_cursor as string;
    expectRefused(
      await get(tenant.businessId, tenant.tokens.owner, 'changesets', `cursor=${applied}`),
      'status filter',
    );
  });

  it.each([['/businesses'], ['/gallery'], ['/gallery?industry_id=bakery']])(
    'internal media %s refuses forged cursors (422)',
    async (path) => {
      for (const cursor of FORGED) {
        const response = await api(
          'GET',
          `/api/v1/internal/media${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`,
          { headers: { 'x-internal-api-key': inject('harness').credentials.internal_api_key } },
        );
        expectRefused(response, `${path} ${cursor}`);
      }
    },
  );
});
