import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { describe, expect, inject, it } from 'vitest';
import { api } from '../support/api.ts';

describe('local harness', () => {
  const harness = inject('harness');

  it('writes credentials.json in exactly the documented shape, with tokens valid for at least 24 h', () => {
    const credentials = JSON.parse(readFileSync(join(harness.stateDir, 'credentials.json'), 'utf8'));

    expect(Object.keys(credentials).sort()).toEqual(
      [
        'agent_key',
        'base_url',
        'businesses',
        'internal_api_key',
        'platform_admin_token',
        'ses_web_url',
      ].sort(),
    );
    expect(credentials.base_url).toBe(harness.baseUrl);
    expect(credentials.businesses).toHaveLength(2);
    for (const business of credentials.businesses) {
      expect(Object.keys(business).sort()).toEqual(['id', 'name', 'tokens']);
      expect(Object.keys(business.tokens).sort()).toEqual(['editor', 'owner', 'viewer']);
      for (const token of Object.values(business.tokens) as string[]) {
        expect(decodeJwt(token).exp ?? 0).toBeGreaterThanOrEqual(Date.now() / 1000 + 24 * 3600);
      }
    }
    expect(credentials.agent_key).toMatch(/^agk_/);
    expect(credentials.ses_web_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('seeds two businesses in different tenants whose tokens work only on their own business', async () => {
    const [first, second] = harness.credentials.businesses;
    if (!first || !second) throw new Error('seed missing');
    const path = (id: string) => `/api/v1/businesses/${id}/blog_posts/auto_schedule`;

    expect([200, 404]).toContain((await api('GET', path(first.id), { token: first.tokens.viewer })).status);
    expect((await api('GET', path(second.id), { token: first.tokens.owner })).status).toBe(403);
    expect([200, 404]).toContain(
      (await api('GET', path(second.id), { token: harness.credentials.platform_admin_token })).status,
    );
  });

  it('serves the OpenAPI document, the docs page and the dev issuer JWKS', async () => {
    const openApi = await api('GET', '/openapi.json');
    expect(openApi.status).toBe(200);
    expect(openApi.body.openapi).toBe('3.1.0');
    expect(openApi.body.servers).toEqual([{ url: harness.baseUrl }]);

    const docs = await fetch(`${harness.baseUrl}/docs`);
    expect(docs.headers.get('content-type')).toContain('text/html');
    expect(await docs.text()).toContain('/openapi.json');
    expect((await fetch(`${harness.baseUrl}/docs/swagger-ui-bundle.js`)).status).toBe(200);

    const jwks = await api('GET', '/local-issuer/.well-known/jwks.json');
    expect(jwks.body.keys).toHaveLength(1);
    expect(jwks.body.keys[0].d).toBeUndefined();
  });

  it('answers unknown routes like API Gateway does', async () => {
    const response = await api('GET', '/api/v1/nothing-here');

    expect(response.status).toBe(404);
    expect(response.body).toEqual({ message: 'Not Found' });
  });

  it("enforces API Gateway's 10 MB request limit before invoking anything", async () => {
    const business = harness.credentials.businesses[0];
    const response = await api('PUT', `/api/v1/businesses/${business?.id}/blog_posts/auto_schedule`, {
      token: business?.tokens.owner,
      raw: Buffer.alloc(10 * 1024 * 1024 + 1, 0x20),
      headers: { 'content-type': 'application/json' },
    });

    expect(response.status).toBe(413);
    expect(response.body).toEqual({ message: 'Request Entity Too Large' });
  });

  it('gives every request its own request id', async () => {
    const business = harness.credentials.businesses[0];
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const response = await api('GET', `/api/v1/businesses/${business?.id}/blog_posts/auto_schedule`);
      ids.add(response.headers.get('x-request-id') ?? '');
    }

    expect(ids.size).toBe(5);
  });
});
