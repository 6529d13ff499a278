import { describe, expect, it } from 'vitest';
import { agentRoute } from '#lib/routes/agent.ts';
import { contractProblems } from '../support/openapi-contract.ts';

/** The fuzz and the tenant matrix trust this checker; it must see what is wrong. */
describe('the OpenAPI contract checker', () => {
  const route = agentRoute('listFaqs');
  const json = (status: number, body: unknown, type = 'application/json; charset=utf-8') => ({
    status,
    headers: new Headers({ 'content-type': type }),
    text: JSON.stringify(body),
  });
  const faq = {
    id: 'f',
    business_id: '3f1c2b0e-8d6a-4a52-9a3e-1b2c3d4e5f60',
    version: 1,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    updated_by: { type: 'agent', id: 'k' },
    question: 'Q?',
    answer: 'A.',
    position: null,
    is_published: true,
  };

  it('accepts a documented response that matches its schema', () => {
    expect(contractProblems(route, json(200, { request_id: 'r', success: true, data: [faq] }))).toEqual([]);
    expect(
      contractProblems(
        route,
        json(403, { request_id: 'r', success: false, error: { code: 'FORBIDDEN', message: 'no' } }),
      ),
    ).toEqual([]);
  });

  it('names an undocumented status, an undocumented content type and a schema violation', () => {
    expect(contractProblems(route, json(404, {}))[0]).toContain('status 404 is not documented');
    expect(contractProblems(route, json(200, {}, 'text/html'))[0]).toContain("content-type 'text/html'");
    const broken = { ...faq, business_id: 'not-a-uuid', created_at: 'yesterday' };
    const problems = contractProblems(route, json(200, { request_id: 'r', success: true, data: [broken] }));
    expect(problems.join('\n')).toContain('/data/0/business_id must match format "uuid"');
    expect(problems.join('\n')).toContain('/data/0/created_at must match format "date-time"');
    expect(contractProblems(route, json(403, { message: 'Forbidden' })).join('\n')).toContain('required');
  });
});
