import { describe, expect, inject, it } from 'vitest';
import { CONSOLE_CORS } from '#lib/http/cors.ts';
import { api } from '../support/api.ts';
import { arrangeTenant } from '../support/tenants.ts';

/**
 * The harness answers the console's CORS as the console API's CORS configuration does in AWS
 * (lib/http/cors.ts): preflights never reach a function, allowed origins get the headers, others
 * none. The console's origin locally is the dev console's, i.e. the harness's own.
 */
const consoleOrigin = () => new URL(inject('harness').baseUrl).origin;
const preflight = (path: string, origin: string, method = 'PUT') =>
  api('OPTIONS', path, {
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization,content-type,if-match,idempotency-key',
    },
  });

describe('console CORS (harness as API Gateway)', () => {
  it('answers a console preflight from an allowed origin with the configured headers', async () => {
    const { businessId } = await arrangeTenant();
    const response = await preflight(
      `/api/v1/businesses/${businessId}/blog_posts/auto_schedule`,
      consoleOrigin(),
    );

    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(consoleOrigin());
    expect(response.headers.get('access-control-allow-headers')?.split(',')).toEqual([
      ...CONSOLE_CORS.allowHeaders,
    ]);
    expect(response.headers.get('access-control-allow-methods')?.split(',')).toEqual(
      expect.arrayContaining(['GET', 'PUT', 'PATCH', 'DELETE', 'POST']),
    );
    expect(response.headers.get('access-control-max-age')).toBe(String(CONSOLE_CORS.maxAgeSeconds));
  });

  it('gives another origin no CORS headers, so the browser refuses', async () => {
    const response = await preflight('/api/v1/edits/claims', 'https://evil.example', 'GET');

    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('adds the allow-origin and exposed headers to actual responses, errors included', async () => {
    const {
      tokens: { owner },
    } = await arrangeTenant();
    const ok = await api('GET', '/api/v1/edits/claims', {
      token: owner,
      headers: { origin: consoleOrigin() },
    });
    const unauthorised = await api('GET', '/api/v1/edits/claims', { headers: { origin: consoleOrigin() } });
    const foreign = await api('GET', '/api/v1/edits/claims', {
      token: owner,
      headers: { origin: 'https://evil.example' },
    });

    for (const response of [ok, unauthorised]) {
      expect(response.headers.get('access-control-allow-origin')).toBe(consoleOrigin());
      expect(response.headers.get('access-control-expose-headers')?.split(',')).toEqual([
        ...CONSOLE_CORS.exposeHeaders,
      ]);
    }
    expect(ok.status).toBe(200);
    expect(unauthorised.status).toBe(401);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('leaves any-origin routes answering for themselves', async () => {
    const response = await preflight('/oauth/token', 'https://assistant.example', 'POST');

    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });
});
