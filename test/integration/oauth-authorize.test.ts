import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { api } from '../support/api.ts';
import { documentHits, scriptDocument } from '../support/document-host.ts';
import { baseUrl, REDIRECT_URI, registerClient, startAuthorization } from '../support/oauth.ts';
import { arrangeTenant } from '../support/tenants.ts';

const host = () => inject('documentHost');

/** Where an error redirect went, and what it said. */
function errorRedirect(location: string | undefined) {
  expect(location).toBeDefined();
  const url = new URL(location as string);
  return { target: `${url.origin}${url.pathname}`, params: Object.fromEntries(url.searchParams) };
}

describe('/oauth/authorize before the client and redirect URI are trusted: an error page, never a redirect', () => {
  it.each([
    ['an unknown client', { clientId: randomUUID() }],
    ['no client_id', { clientId: '', params: { client_id: undefined } }],
  ])('%s', async (_name, input) => {
    const started = await startAuthorization(input);

    expect(started.response.status).toBe(400);
    expect(started.location).toBeUndefined();
    expect(started.response.headers.get('content-type')).toContain('text/html');
    expect(started.body).toContain('Cannot connect this assistant');
  });

  it('a redirect URI the client did not register', async () => {
    const client = await registerClient();

    for (const redirectUri of ['http://127.0.0.1:43117/other', 'https://attacker.example/callback']) {
      const started = await startAuthorization({ clientId: client.client_id, redirectUri });
      expect(started.response.status, redirectUri).toBe(400);
      expect(started.location, redirectUri).toBeUndefined();
    }
  });

  it('accepts a loopback redirect URI on any port (RFC 8252 §7.3)', async () => {
    const client = await registerClient();

    const started = await startAuthorization({
      clientId: client.client_id,
      redirectUri: 'http://127.0.0.1:5999/callback',
    });

    expect(started.response.status).toBe(302);
    expect(started.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('/oauth/authorize errors after that: RFC 6749 redirects carrying state and iss', () => {
  it.each([
    ['no PKCE', { code_challenge: undefined, code_challenge_method: undefined }, 'invalid_request'],
    ['the plain PKCE method', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['a malformed challenge', { code_challenge: 'short' }, 'invalid_request'],
    ['another response type', { response_type: 'token' }, 'unsupported_response_type'],
    ['a scope outside the supported set', { scope: 'edits:read admin' }, 'invalid_scope'],
    ['another resource', { resource: 'https://other.example/mcp' }, 'invalid_target'],
    ['a resource of ours at another path', { resource: `${'BASE'}/api/v1/agent` }, 'invalid_target'],
  ])('%s', async (_name, params, error) => {
    const client = await registerClient();
    const resolved = Object.fromEntries(
      Object.entries(params).map(([k, v]) => [k, v?.replace('BASE', baseUrl())]),
    );

    const started = await startAuthorization({
      clientId: client.client_id,
      state: 'xyz-state',
      params: resolved,
    });

    expect(started.response.status).toBe(302);
    const { target, params: query } = errorRedirect(started.location);
    expect(target).toBe(REDIRECT_URI);
    expect(query).toMatchObject({ error, state: 'xyz-state', iss: baseUrl() });
    expect(query.error_description).toEqual(expect.any(String));
  });
});

describe('/oauth/authorize success: a pending consent request and a 302 to the console', () => {
  it.each([
    ['absent (the tool server by default)', undefined, '/mcp'],
    ['with a trailing slash', 'BASE/api/v1/edits/', '/api/v1/edits'],
    ['with an upper-case scheme and host', 'HTTP://127.0.0.1:PORT/mcp', '/mcp'],
  ])('resource %s', async (_name, resource, expected) => {
    const tenant = await arrangeTenant();
    const client = await registerClient();
    const port = new URL(baseUrl()).port;

    const started = await startAuthorization({
      clientId: client.client_id,
      ...(resource ? { resource: resource.replace('BASE', baseUrl()).replace('PORT', port) } : {}),
    });

    expect(started.response.status).toBe(302);
    expect(started.location).toMatch(/\/oauth\/consent\?request_id=[0-9a-f-]{36}$/);
    const info = await api('GET', `/api/v1/oauth/requests/${started.requestId}`, {
      token: tenant.tokens.owner,
    });
    expect(info.body.resource).toBe(`${baseUrl()}${expected}`);
  });

  it('defaults the scope to edits:read edits:write and splits scopes on any whitespace', async () => {
    const tenant = await arrangeTenant();
    const client = await registerClient();

    const defaulted = await startAuthorization({ clientId: client.client_id, params: { scope: undefined } });
    const spaced = await startAuthorization({
      clientId: client.client_id,
      scope: 'edits:read\t offline_access',
    });

    const read = (id: string | undefined) =>
      api('GET', `/api/v1/oauth/requests/${id}`, { token: tenant.tokens.owner });
    expect((await read(defaulted.requestId)).body.scopes.map((s: { name: string }) => s.name)).toEqual([
      'edits:read',
      'edits:write',
    ]);
    expect((await read(spaced.requestId)).body.scopes.map((s: { name: string }) => s.name)).toEqual([
      'edits:read',
      'offline_access',
    ]);
  });
});

describe('Client ID Metadata Documents', () => {
  const document = (clientId: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      client_id: clientId,
      client_name: 'Doc Assistant',
      redirect_uris: [REDIRECT_URI],
      ...extra,
    });

  it('uses a valid document, caching it as long as its headers allow', async () => {
    const tenant = await arrangeTenant();
    const path = `/clients/${randomUUID()}.json`;
    const clientId = `${host()}${path}`;
    await scriptDocument(host(), path, {
      status: 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'max-age=300' },
      body: document(clientId),
    });

    const first = await startAuthorization({ clientId });
    const second = await startAuthorization({ clientId });

    expect(first.response.status).toBe(302);
    expect(second.response.status).toBe(302);
    expect(await documentHits(host(), path)).toBe(1);
    const info = await api('GET', `/api/v1/oauth/requests/${first.requestId}`, {
      token: tenant.tokens.owner,
    });
    expect(info.body).toMatchObject({
      client_id: clientId,
      client_name: 'Doc Assistant',
      client_host: '127.0.0.1:43117',
    });
  });

  it('fetches a document over https (certificate checked), as client ids are in production', async () => {
    const path = `/clients/${randomUUID()}.json`;
    const clientId = `${inject('documentHostHttps')}${path}`;
    await scriptDocument(host(), path, { status: 200, body: document(clientId) });

    const started = await startAuthorization({ clientId });

    expect(started.response.status).toBe(302);
    expect(await documentHits(host(), path)).toBe(1);
  });

  it('never caches a failure: a fixed document works on the next try', async () => {
    const path = `/clients/${randomUUID()}.json`;
    const clientId = `${host()}${path}`;

    const missing = await startAuthorization({ clientId });
    await scriptDocument(host(), path, { status: 200, body: document(clientId) });
    const fixed = await startAuthorization({ clientId });

    expect(missing.response.status).toBe(400);
    expect(fixed.response.status).toBe(302);
  });

  it.each([
    ['names another client_id', (id: string) => ({ status: 200, body: document(`${id}x`) })],
    [
      'is larger than 5 KB',
      (id: string) => ({ status: 200, body: document(id, { padding: 'x'.repeat(6000) }) }),
    ],
    ['redirects', (id: string) => ({ status: 302, headers: { location: `${id}-elsewhere` }, body: '' })],
    ['answers 404', () => ({ status: 404, body: '{}' })],
    ['answers 200 with something that is not JSON', () => ({ status: 200, body: '<html>' })],
    [
      'lacks client_name',
      (id: string) => ({
        status: 200,
        body: JSON.stringify({ client_id: id, redirect_uris: [REDIRECT_URI] }),
      }),
    ],
    [
      'lists a javascript: redirect URI',
      (id: string) => ({ status: 200, body: document(id, { redirect_uris: ['javascript:alert(1)'] }) }),
    ],
  ])('refuses a document that %s (error page, no redirect)', async (_name, response) => {
    const path = `/clients/${randomUUID()}.json`;
    const clientId = `${host()}${path}`;
    await scriptDocument(host(), path, response(clientId));

    const started = await startAuthorization({ clientId });

    expect(started.response.status).toBe(400);
    expect(started.location).toBeUndefined();
  });

  it.each([
    'https://10.0.0.8/client.json',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/client.json',
    'http://127.0.0.1:1/client.json',
  ])('never fetches from a private or loopback address outside the allow-list: %s', async (clientId) => {
    const started = await startAuthorization({ clientId });

    expect(started.response.status).toBe(400);
    expect(started.location).toBeUndefined();
  });
});
