import { describe, expect, it } from 'vitest';
import {
  agentApi,
  arrangeAgentTenant,
  collectionPath,
  createRecordVia,
  itemPath,
} from '../support/agents.ts';
import { api } from '../support/api.ts';
import { arrangeTenant } from '../support/tenants.ts';

/**
 * A value that breaks its documented format (apply_url is `format: uri`) is a
 * 422 on every write path, so no list response can later violate its own schema.
 */
const BAD_URLS = ['https://example.com/a b', 'https://example.com/<script>', 'javascript:alert(1)'];
const JOB = { title: 'Baker', description: 'Early shifts' };

describe('format-bearing fields of records', () => {
  it.each(BAD_URLS.map((url) => [url]))(
    'job posting apply_url %j is a 422 on create, replace and patch',
    async (url) => {
      const tenant = await arrangeAgentTenant();
      const job = await createRecordVia(tenant, 'job_posting', JOB);
      const attempts = [
        agentApi('POST', collectionPath(tenant.businessId, 'job_posting'), tenant.key, {
          json: { ...JOB, apply_url: url },
        }),
        agentApi('PUT', itemPath(tenant.businessId, 'job_posting', job.id), tenant.key, {
          json: { ...JOB, apply_url: url },
        }),
        agentApi('PATCH', itemPath(tenant.businessId, 'job_posting', job.id), tenant.key, {
          json: { apply_url: url },
        }),
      ];

      for (const response of await Promise.all(attempts)) {
        expect(response.status).toBe(422);
        expect(response.body.error.code).toBe('VALIDATION_ERROR');
        expect(response.body.error.details[0].loc).toEqual(['body', 'apply_url']);
      }
      const list = await agentApi('GET', collectionPath(tenant.businessId, 'job_posting'), tenant.key);
      expect(list.body.data.map((record: { apply_url: string | null }) => record.apply_url)).toEqual([null]);
    },
  );

  it('accepts a well-formed apply_url and apply_email, and refuses an e-mail domain ending in "-"', async () => {
    const tenant = await arrangeAgentTenant();
    const path = collectionPath(tenant.businessId, 'job_posting');

    const good = await agentApi('POST', path, tenant.key, {
      json: {
        ...JOB,
        apply_url: 'https://example.com/jobs?role=baker%20assistant#apply',
        apply_email: 'jobs@example.com',
      },
    });
    const badEmail = await agentApi('POST', path, tenant.key, {
      json: { ...JOB, apply_email: 'jobs@example-.com' },
    });

    expect(good.status).toBe(201);
    expect(good.body.data.apply_url).toBe('https://example.com/jobs?role=baker%20assistant#apply');
    expect(badEmail.status).toBe(422);
    expect(badEmail.body.error.details[0].loc).toEqual(['body', 'apply_email']);
  });

  it('a changeset item with a malformed apply_url is a 422 and nothing is staged', async () => {
    const tenant = await arrangeTenant();
    const session = await api('POST', '/api/v1/edits/sessions', {
      token: tenant.tokens.owner,
      json: { business_id: tenant.businessId },
    });

    const staged = await api('POST', `/api/v1/edits/sessions/${session.body.data.id}/changesets`, {
      token: tenant.tokens.owner,
      json: {
        items: [
          {
            entity: 'job_posting',
            action: 'create',
            fields: { ...JOB, apply_url: 'https://example.com/a b' },
          },
        ],
      },
    });

    expect(staged.status).toBe(422);
    expect(staged.body.error.details, JSON.stringify(staged.body)).toEqual([
      expect.objectContaining({ loc: ['body', 'items', 0, 'fields', 'apply_url'] }),
    ]);
  });
});
