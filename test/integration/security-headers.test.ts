import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import {
  agentApi,
  arrangeAgentTenant,
  collectionPath,
  createRecordVia,
  itemPath,
} from '../support/agents.ts';

/**
 * `x-content-type-options: nosniff` on every response — success, error,
 * preflight, raw (HTML, redirects, bytes) and the harness's own — and `strict-transport-security`
 * on every response the functions write (the pipeline sends it everywhere; see docs/decisions.md).
 */
interface Case {
  name: string;
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  status: number;
  /** Written by a function (through the pipeline), not by the harness standing in for API Gateway. */
  fromFunction: boolean;
}

async function send(request: Case) {
  return fetch(`${inject('harness').baseUrl}${request.path}`, {
    method: request.method ?? 'GET',
    headers: request.headers ?? {},
    ...(request.body === undefined ? {} : { body: request.body }),
    redirect: 'manual',
  });
}

describe('security headers', () => {
  it('nosniff on every kind of response, HSTS on every response of a function', async () => {
    const tenant = await arrangeAgentTenant();
    const faq = await createRecordVia(tenant, 'faq');
    const agent = { authorization: `Bearer ${tenant.key}` };
    const json = { ...agent, 'content-type': 'application/json' };
    const internal = { 'x-internal-api-key': inject('harness').credentials.internal_api_key };
    const business = inject('harness').credentials.businesses[0]?.id as string;
    const photos = await fetch(
      `${inject('harness').baseUrl}/api/v1/internal/media/photos?business_id=${business}`,
      { headers: internal },
    );
    const photoId = ((await photos.json()) as { items: { asset_id: string }[] }).items[0]?.asset_id;
    const faqs = collectionPath(tenant.businessId, 'faq');

    const cases: Case[] = [
      { name: 'list 200', path: faqs, headers: agent, status: 200, fromFunction: true },
      {
        name: 'create 201',
        method: 'POST',
        path: faqs,
        headers: json,
        body: JSON.stringify({ question: 'Q?', answer: 'A' }),
        status: 201,
        fromFunction: true,
      },
      {
        name: 'delete 204',
        method: 'DELETE',
        path: itemPath(tenant.businessId, 'faq', faq.id),
        headers: agent,
        status: 204,
        fromFunction: true,
      },
      { name: '401', path: faqs, status: 401, fromFunction: true },
      {
        name: '403',
        path: collectionPath(tenant.other.businessId, 'faq'),
        headers: agent,
        status: 403,
        fromFunction: true,
      },
      {
        name: '404',
        path: itemPath(tenant.businessId, 'faq', randomUUID()),
        headers: agent,
        status: 404,
        fromFunction: true,
      },
      { name: '422', path: `${faqs}?limit=0`, headers: agent, status: 422, fromFunction: true },
      { name: '400', method: 'POST', path: faqs, headers: json, body: '{', status: 400, fromFunction: true },
      {
        name: '415',
        method: 'POST',
        path: faqs,
        headers: { ...agent, 'content-type': 'text/plain' },
        body: 'x',
        status: 415,
        fromFunction: true,
      },
      {
        name: '413 of the function',
        method: 'POST',
        path: faqs,
        headers: json,
        body: JSON.stringify({ question: 'Q', answer: 'x'.repeat(300_000) }),
        status: 413,
        fromFunction: true,
      },
      {
        name: '413 of the gateway',
        method: 'POST',
        path: faqs,
        headers: json,
        body: Buffer.alloc(10 * 1024 * 1024 + 1, 0x20),
        status: 413,
        fromFunction: false,
      },
      {
        name: 'preflight',
        method: 'OPTIONS',
        path: '/mcp',
        headers: { origin: 'https://assistant.example', 'access-control-request-method': 'POST' },
        status: 204,
        fromFunction: true,
      },
      {
        name: 'metadata (bare)',
        path: '/.well-known/oauth-authorization-server',
        status: 200,
        fromFunction: true,
      },
      { name: 'unknown well-known 404', path: '/.well-known/nothing-here', status: 404, fromFunction: true },
      { name: 'HTML error page (raw)', path: '/oauth/authorize', status: 400, fromFunction: true },
      {
        name: 'OAuth error',
        method: 'POST',
        path: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=nope',
        status: 400,
        fromFunction: true,
      },
      {
        name: 'photo bytes (binary)',
        path: `/api/v1/internal/media/photos/${photoId}/bytes`,
        headers: internal,
        status: 200,
        fromFunction: true,
      },
      { name: 'no route', path: '/nowhere', status: 404, fromFunction: false },
      { name: 'OpenAPI document', path: '/openapi.json', status: 200, fromFunction: false },
      { name: 'API docs page', path: '/docs', status: 200, fromFunction: false },
      { name: 'health', path: '/health', status: 200, fromFunction: false },
      { name: 'dev console', path: '/console', status: 302, fromFunction: false },
    ];

    for (const request of cases) {
      const response = await send(request);
      expect(response.status, request.name).toBe(request.status);
      expect(response.headers.get('x-content-type-options'), request.name).toBe('nosniff');
      if (request.fromFunction) {
        expect(response.headers.get('strict-transport-security'), request.name).toMatch(/^max-age=\d{7,}/);
      }
      await response.arrayBuffer();
    }
  });

  it('HSTS and nosniff on agent responses of every status, also with an upper-case media type', async () => {
    const tenant = await arrangeAgentTenant();

    const response = await agentApi('POST', collectionPath(tenant.businessId, 'faq'), tenant.key, {
      raw: JSON.stringify({ question: 'Q?', answer: 'A' }),
      headers: { 'content-type': 'APPLICATION/JSON' },
    });

    expect(response.status).toBe(201);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('strict-transport-security')).toBe('max-age=31536000');
  });
});
