import { describe, expect, it } from 'vitest';
import { agentApi, arrangeAgentTenant, createRecordVia, historyOf, itemPath } from '../support/agents.ts';

const CONCURRENT = 50;

describe('records: concurrent writes', () => {
  it('lets exactly one of 50 PATCHes with the same If-Match win; the others get 409', async () => {
    const tenant = await arrangeAgentTenant();
    const faq = await createRecordVia(tenant, 'faq');
    const path = itemPath(tenant.businessId, 'faq', faq.id);

    const responses = await Promise.all(
      Array.from({ length: CONCURRENT }, (_, i) =>
        agentApi('PATCH', path, tenant.key, {
          json: { answer: `answer ${i}` },
          headers: { 'if-match': '"1"' },
        }),
      ),
    );

    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(CONCURRENT - 1);
    for (const response of responses.filter((r) => r.status === 409)) {
      expect(response.body.error.code).toBe('VERSION_CONFLICT');
    }
    const after = await agentApi('GET', path, tenant.key);
    expect(after.body.data.version).toBe(2);
    expect(await historyOf(tenant.businessId, faq.id)).toHaveLength(2);
  });

  it('applies all of 50 PATCHes without If-Match: version +50 and 50 history entries', async () => {
    const tenant = await arrangeAgentTenant();
    const faq = await createRecordVia(tenant, 'faq');
    const path = itemPath(tenant.businessId, 'faq', faq.id);

    const responses = await Promise.all(
      Array.from({ length: CONCURRENT }, (_, i) =>
        agentApi('PATCH', path, tenant.key, { json: { position: i } }),
      ),
    );

    expect(responses.map((response) => response.status)).toEqual(Array(CONCURRENT).fill(200));
    const versions = responses.map((response) => response.body.data.version).sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: CONCURRENT }, (_, i) => i + 2));
    const after = await agentApi('GET', path, tenant.key);
    expect(after.body.data.version).toBe(1 + CONCURRENT);
    const updates = (await historyOf(tenant.businessId, faq.id)).filter((entry) => entry.action === 'update');
    expect(updates).toHaveLength(CONCURRENT);
  }, 60_000);
});
