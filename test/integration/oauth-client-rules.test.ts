/**
 * What a client must be before /oauth/authorize takes it: its metadata document, the scopes it
 * registered, its name, its registration's lifetime and its URIs (oauth-authorize.test.ts covers
 * the endpoint's answers themselves).
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { keys } from '#lib/db/keys.ts';
import { api } from '../support/api.ts';
import { errorRedirect, expectErrorPage, host, publishDocument } from '../support/authorize-answers.ts';
import { documentHits, scriptDocument } from '../support/document-host.ts';
import { harnessTable } from '../support/harness-table.ts';
import {
  postJsonFrom,
  preRegisterClient,
  REDIRECT_URI,
  randomLoopbackAddress,
  registerClient,
  startAuthorization,
} from '../support/oauth.ts';
import { arrangeTenant } from '../support/tenants.ts';

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

describe('/oauth/authorize keeps a client to the scopes it registered', () => {
  const scopesOf = async (requestId: string | undefined, token: string) =>
    (await api('GET', `/api/v1/oauth/requests/${requestId}`, { token })).body.scopes.map(
      (scope: { name: string }) => scope.name,
    );

  it('refuses a scope outside the registration, and grants one inside it', async () => {
    const tenant = await arrangeTenant();
    const client = await registerClient({ scope: 'edits:read offline_access' });

    const wider = await startAuthorization({ clientId: client.client_id, scope: 'edits:read edits:write' });
    const inside = await startAuthorization({
      clientId: client.client_id,
      scope: 'offline_access edits:read',
    });

    expectErrorPage(wider);
    expect(wider.body).toContain('(invalid_scope)');
    expect(wider.body).toContain('edits:write');
    expect(await scopesOf(inside.requestId, tenant.tokens.owner)).toEqual(['offline_access', 'edits:read']);
  });

  it('asks for nothing: the defaults the client registered, and a refusal when it registered none of them', async () => {
    const tenant = await arrangeTenant();
    const readOnly = await registerClient({ scope: 'edits:read offline_access' });
    const offlineOnly = await registerClient({ scope: 'offline_access' });
    const everything = await registerClient();

    const narrowed = await startAuthorization({ clientId: readOnly.client_id, params: { scope: undefined } });
    const refused = await startAuthorization({
      clientId: offlineOnly.client_id,
      params: { scope: undefined },
    });
    const defaults = await startAuthorization({
      clientId: everything.client_id,
      params: { scope: undefined },
    });

    expect(await scopesOf(narrowed.requestId, tenant.tokens.owner)).toEqual(['edits:read']);
    expectErrorPage(refused);
    expect(refused.body).toContain('(invalid_scope)');
    expect(await scopesOf(defaults.requestId, tenant.tokens.owner)).toEqual(['edits:read', 'edits:write']);
  });

  it('answers a pre-registered client with an invalid_scope redirect', async () => {
    const client = await preRegisterClient({ scope: 'edits:read' });

    const started = await startAuthorization({
      clientId: client.client_id,
      scope: 'edits:write',
      state: 's',
    });

    expect(errorRedirect(started.location).params).toMatchObject({ error: 'invalid_scope', state: 's' });
  }, 60_000);

  it('holds a metadata document to the scope it names, and finds a document naming an unknown scope unusable', async () => {
    const tenant = await arrangeTenant();
    const readOnly = await publishDocument({ scope: 'edits:read' });
    const unknown = await publishDocument({ scope: 'edits:read admin' });

    const wider = await startAuthorization({ clientId: readOnly.clientId, scope: 'edits:read edits:write' });
    const defaulted = await startAuthorization({ clientId: readOnly.clientId, params: { scope: undefined } });
    const unusable = await startAuthorization({ clientId: unknown.clientId, scope: 'edits:read' });

    expectErrorPage(wider);
    expect(wider.body).toContain('(invalid_scope)');
    expect(await scopesOf(defaulted.requestId, tenant.tokens.owner)).toEqual(['edits:read']);
    expectErrorPage(unusable);
    expect(unusable.body).toContain('client is unknown');
  });
});

describe('client_name hygiene: what the consent page shows must not lie about itself', () => {
  const hostileNames = [
    ['a right-to-left override', 'Acme\u202Emoc.evil'],
    ['a left-to-right mark', 'Acme\u200E Assistant'],
    ['an isolate', 'Acme \u2066evil\u2069'],
    ['an Arabic letter mark', 'Acme\u061C'],
    ['a line break', 'Acme\nApproved by your bank'],
    ['an escape character', 'Acme\u001B[2J'],
    ['a C1 control', 'Acme\u0085'],
    ['a zero-width space', 'Ac\u200Bme'],
    ['an invisible tag character', 'Acme\u{E0041}\u{E0042}'],
    ['101 characters', 'x'.repeat(101)],
    ['nothing but spaces', '   '],
  ] as const;

  it.each(hostileNames)(
    'registration refuses a name with %s (invalid_client_metadata)',
    async (_what, name) => {
      const response = await postJsonFrom(randomLoopbackAddress(), '/oauth/register', {
        client_name: name,
        redirect_uris: [REDIRECT_URI],
      });

      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ error: 'invalid_client_metadata' });
    },
  );

  it.each(hostileNames)('a metadata document whose name has %s is unusable', async (_what, name) => {
    const { clientId } = await publishDocument({ client_name: name });

    const started = await startAuthorization({ clientId });

    expectErrorPage(started);
  });

  it('keeps names of 100 characters, in any script, with emoji joined by zero-width joiners', async () => {
    const names = [
      'x'.repeat(100),
      'Ассистент 助手 مساعد',
      'Family \u{1F468}\u200D\u{1F469}\u200D\u{1F467} helper',
      'Persian with a zero-width non-joiner: \u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645',
    ];
    for (const name of names) {
      const client = await registerClient({ client_name: name });
      expect(client.client_id, name).toEqual(expect.any(String));
    }
  });
});

describe('dynamic registrations expire after 24 hours unless they complete a grant', () => {
  it('writes the TTL on a registration, refuses one past it at authorize, and gives a pre-registered client none', async () => {
    const { db, tableName } = harnessTable();
    const registered = await registerClient();
    const preRegistered = await preRegisterClient();
    const item = async (clientId: string) =>
      (await db.send(new GetCommand({ TableName: tableName, Key: keys.oauthClient(clientId) }))).Item;

    const stored = await item(registered.client_id);
    const now = Math.floor(Date.now() / 1000);
    expect(stored?.expires_at_epoch).toBeGreaterThan(now + 24 * 3600 - 120);
    expect(stored?.expires_at_epoch).toBeLessThanOrEqual(now + 24 * 3600);
    expect((await item(preRegistered.client_id))?.expires_at_epoch).toBeUndefined();

    // DynamoDB's TTL deletes expired items late (within days): until then the item is still there.
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.oauthClient(registered.client_id),
        UpdateExpression: 'SET expires_at_epoch = :past',
        ExpressionAttributeValues: { ':past': now - 1 },
      }),
    );
    const started = await startAuthorization({ clientId: registered.client_id });

    expectErrorPage(started);
    expect(started.body).toContain('client is unknown');
  }, 60_000);
});

describe('URI rules', () => {
  it.each([
    ['an empty fragment', '/clients/ID.json#'],
    ['a fragment', '/clients/ID.json#x'],
    ['a dot segment', '/clients/./ID.json'],
    ['a dot-dot segment', '/other/../clients/ID.json'],
    ['a percent-encoded dot-dot segment', '/other/%2e%2E/clients/ID.json'],
    ['a percent-encoded dot segment', '/clients/%2e/ID.json'],
    ['the root path', '/'],
  ])('a metadata-document client_id with %s is refused before anything is fetched', async (_what, suffix) => {
    const id = randomUUID();
    await scriptDocument(host(), `/clients/${id}.json`, { status: 200, body: '{}' });
    const clientId = `${host()}${suffix.replace('ID', id)}`;

    const started = await startAuthorization({ clientId });

    expectErrorPage(started, clientId);
    expect(await documentHits(host(), `/clients/${id}.json`)).toBe(0);
  });

  it('a metadata-document client_id with userinfo or plain http outside the allow-list is refused', async () => {
    const path = `/clients/${randomUUID()}.json`;
    const withUser = host().replace('http://', 'http://someone@');
    for (const clientId of [`${withUser}${path}`, `http://public.example${path}`]) {
      const started = await startAuthorization({ clientId });
      expectErrorPage(started, clientId);
    }
    expect(await documentHits(host(), path)).toBe(0);
  });

  it.each([
    ['an empty fragment', 'https://app.example/cb#'],
    ['a fragment', 'http://127.0.0.1:43117/callback#x'],
    ['userinfo on a loopback URI', 'http://someone@127.0.0.1:43117/callback'],
    ['empty userinfo on a loopback URI', 'http://@localhost/callback'],
  ])('registration refuses a redirect URI with %s', async (_what, uri) => {
    const response = await postJsonFrom(randomLoopbackAddress(), '/oauth/register', { redirect_uris: [uri] });

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'invalid_redirect_uri' });
  });

  it.each([
    ['an empty fragment', 'http://127.0.0.1:5999/callback#'],
    ['userinfo', 'http://attacker@127.0.0.1:5999/callback'],
  ])('authorize refuses a loopback redirect URI on another port with %s', async (_what, redirectUri) => {
    const client = await registerClient();

    const started = await startAuthorization({ clientId: client.client_id, redirectUri });

    expectErrorPage(started);
    expect(started.body).toContain('redirect_uri is not one the client registered');
  });
});

describe('the consent information says who vouches for the client (client_source)', () => {
  it('dynamic, metadata_document or preregistered', async () => {
    const tenant = await arrangeTenant();
    const dynamic = await registerClient();
    const { clientId: document } = await publishDocument();
    const preRegistered = await preRegisterClient();

    for (const [clientId, source] of [
      [dynamic.client_id, 'dynamic'],
      [document, 'metadata_document'],
      [preRegistered.client_id, 'preregistered'],
    ] as const) {
      const started = await startAuthorization({ clientId });
      const info = await api('GET', `/api/v1/oauth/requests/${started.requestId}`, {
        token: tenant.tokens.owner,
      });
      expect(info.body.client_source, clientId).toBe(source);
    }
  }, 60_000);
});
