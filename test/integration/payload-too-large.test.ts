import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { agentApi, arrangeAgentTenant, collectionPath } from '../support/agents.ts';
import { api } from '../support/api.ts';

/**
 * A body over the operation's limit gets the operation's ErrorResponse, one
 * over API Gateway's 10 MB gets the gateway's bare `{"message": …}` (as in AWS); the OpenAPI
 * document describes both, and both answers validate against it.
 */
describe('413 Payload Too Large', () => {
  it('both bodies match the 413 the OpenAPI document gives the operation', async () => {
    const tenant = await arrangeAgentTenant();
    const document = (await api('GET', '/openapi.json')).body;
    const documented = new Ajv({ strict: false }).compile({
      ...document.paths['/api/v1/agent/businesses/{business_id}/faqs'].post.responses['413'].content[
        'application/json'
      ].schema,
      components: document.components,
    });
    const path = collectionPath(tenant.businessId, 'faq');

    const overOperation = await agentApi('POST', path, tenant.key, {
      json: { question: 'Q', answer: 'x'.repeat(300_000) },
    });
    const overGateway = await agentApi('POST', path, tenant.key, {
      raw: Buffer.alloc(10 * 1024 * 1024 + 1, 0x20),
      headers: { 'content-type': 'application/json' },
    });

    expect(overOperation.status).toBe(413);
    expect(overOperation.body).toMatchObject({ success: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect(overGateway.status).toBe(413);
    expect(overGateway.body).toEqual({ message: 'Request Entity Too Large' });
    for (const body of [overOperation.body, overGateway.body]) {
      expect(documented(body), JSON.stringify(documented.errors)).toBe(true);
    }
    expect(documented({ unexpected: true })).toBe(false);
  });
});
