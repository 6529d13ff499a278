import { createHash, randomUUID } from 'node:crypto';
import type * as oauth from 'oauth4webapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../support/api.ts';
import {
  errorRedirect,
  expectErrorPage,
  expectRedirectHeaders,
  publishDocument,
} from '../support/authorize-answers.ts';
import {
  baseUrl,
  preRegisterClient,
  REDIRECT_URI,
  registerClient,
  startAuthorization,
} from '../support/oauth.ts';
import { arrangeTenant } from '../support/tenants.ts';

describe('/oauth/authorize before the client and redirect URI are trusted: an error page, never a redirect', () => {
  it.each([
    ['an unknown client', { clientId: randomUUID() }],
    ['no client_id', { clientId: '', params: { client_id: undefined } }],
  ])('%s', async (_name, input) => {
    const started = await startAuthorization(input);

    expectErrorPage(started);
  });

  it('sends the style-only page its policy allows: the inline style is the one the hash names', async () => {
    const started = await startAuthorization({ clientId: randomUUID() });

    const style = /<style>(.*)<\/style>/s.exec(started.body)?.[1] ?? '';
    const hash = createHash('sha256').update(style).digest('base64');
    expect(started.response.headers.get('content-security-policy')).toContain(`style-src 'sha256-${hash}'`);
    expect(started.body).not.toMatch(/<script|<img|<link|<iframe/i);
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

/** The refusals /oauth/authorize makes once client and redirect URI are known. */
const REFUSALS = [
  ['no PKCE', { code_challenge: undefined, code_challenge_method: undefined }, 'invalid_request'],
  ['the plain PKCE method', { code_challenge_method: 'plain' }, 'invalid_request'],
  ['a malformed challenge', { code_challenge: 'short' }, 'invalid_request'],
  ['another response type', { response_type: 'token' }, 'unsupported_response_type'],
  ['a scope outside the supported set', { scope: 'edits:read admin' }, 'invalid_scope'],
  ['another resource', { resource: 'https://other.example/mcp' }, 'invalid_target'],
  ['a resource of ours at another path', { resource: 'BASE/api/v1/agent' }, 'invalid_target'],
] as const;

const withBase = (params: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(params).map(([k, v]) => [k, v?.replace('BASE', baseUrl())]));

describe('/oauth/authorize errors of a pre-registered client: RFC 6749 redirects carrying state and iss', () => {
  let client: oauth.Client;
  beforeAll(async () => {
    client = await preRegisterClient();
  }, 60_000);

  it.each(REFUSALS)('%s', async (_name, params, error) => {
    const started = await startAuthorization({
      clientId: client.client_id,
      state: 'xyz-state',
      params: withBase(params),
    });

    expectRedirectHeaders(started);
    const { target, params: query } = errorRedirect(started.location);
    expect(target).toBe(REDIRECT_URI);
    expect(query).toMatchObject({ error, state: 'xyz-state', iss: baseUrl() });
    expect(query.error_description).toEqual(expect.any(String));
  });
});

describe('/oauth/authorize errors of a client nobody vetted: an error page, never a redirect (no open redirector)', () => {
  it.each(REFUSALS)('%s, for a dynamically registered client', async (_name, params, error) => {
    const client = await registerClient();

    const started = await startAuthorization({ clientId: client.client_id, params: withBase(params) });

    expectErrorPage(started);
    expect(started.body).toContain(`(${error})`);
  });

  it.each(REFUSALS)('%s, for a metadata-document client', async (_name, params, error) => {
    const { clientId } = await publishDocument();

    const started = await startAuthorization({ clientId, params: withBase(params) });

    expectErrorPage(started);
    expect(started.body).toContain(`(${error})`);
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

    expectRedirectHeaders(started);
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
