import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { api } from '../support/api.ts';
import { scriptDocument } from '../support/document-host.ts';
import {
  baseUrl,
  preRegisterClient,
  REDIRECT_URI,
  registerClient,
  startAuthorization,
} from '../support/oauth.ts';
import { arrangeTenant } from '../support/tenants.ts';
import { issuer } from '../support/tokens.ts';

/** A pending request from a freshly registered client, with its state. */
async function pendingRequest(scope = 'edits:read edits:write') {
  const client = await registerClient();
  const started = await startAuthorization({ clientId: client.client_id, scope, state: `s-${randomUUID()}` });
  return { clientId: client.client_id, requestId: started.requestId as string, state: started.state };
}

/** A client described by a metadata document on the document host: its URL, the client_id. */
async function publishClientDocument(): Promise<string> {
  const host = inject('documentHost');
  const path = `/clients/${randomUUID()}.json`;
  const clientId = `${host}${path}`;
  await scriptDocument(host, path, {
    status: 200,
    body: JSON.stringify({
      client_id: clientId,
      client_name: 'Doc Assistant',
      redirect_uris: [REDIRECT_URI],
    }),
  });
  return clientId;
}

const read = (id: string, token: string) => api('GET', `/api/v1/oauth/requests/${id}`, { token });
const decide = (id: string, decision: 'approve' | 'deny', token: string) =>
  api('POST', `/api/v1/oauth/requests/${id}/${decision}`, { token });

describe('GET /api/v1/oauth/requests/{request_id}', () => {
  it('describes the request for the consent page', async () => {
    const tenant = await arrangeTenant();
    const { requestId, clientId } = await pendingRequest();

    const response = await read(requestId, tenant.tokens.owner);

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: requestId,
      client_id: clientId,
      client_name: 'Test Assistant',
      client_host: '127.0.0.1:43117',
      client_source: 'dynamic',
      redirect_uri: REDIRECT_URI,
      scopes: [
        { name: 'edits:read', description: expect.any(String) },
        { name: 'edits:write', description: expect.any(String) },
      ],
      resource: `${baseUrl()}/mcp`,
      expires_at: expect.any(String),
      status: 'pending',
      eligible: true,
      ineligible_reason: null,
      consented_before: false,
    });
    expect(Date.parse(response.body.expires_at) - Date.now()).toBeGreaterThan(9 * 60 * 1000);
  });

  it('names a client that registered without a name by where its code goes', async () => {
    const tenant = await arrangeTenant();
    const client = await registerClient({ client_name: undefined });
    const started = await startAuthorization({ clientId: client.client_id });

    const response = await read(started.requestId as string, tenant.tokens.owner);

    expect(response.body.client_name).toBe('127.0.0.1:43117');
  });

  it('says consented_before once this user approved this client for these scopes', async () => {
    const tenant = await arrangeTenant();
    const client = await registerClient();
    const first = await startAuthorization({ clientId: client.client_id });
    await decide(first.requestId as string, 'approve', tenant.tokens.owner);

    const again = await startAuthorization({ clientId: client.client_id });
    const wider = await startAuthorization({
      clientId: client.client_id,
      scope: 'edits:read edits:write offline_access',
    });

    expect((await read(again.requestId as string, tenant.tokens.owner)).body.consented_before).toBe(true);
    expect((await read(wider.requestId as string, tenant.tokens.owner)).body.consented_before).toBe(false);
  });

  it('marks users who hold no business as ineligible (viewers too)', async () => {
    const tenant = await arrangeTenant();
    const stranger = await (await issuer()).mintToken({ email: `nobody-${randomUUID()}@example.com` });

    for (const token of [stranger, tenant.tokens.viewer]) {
      const { requestId } = await pendingRequest();
      const response = await read(requestId, token);
      expect(response.body.eligible).toBe(false);
      expect(response.body.ineligible_reason).toEqual(expect.any(String));
    }
  });

  it('answers 401 without a token, 404 for an unknown request, 422 (HTTPValidationError) for a bad id', async () => {
    const tenant = await arrangeTenant();
    const { requestId } = await pendingRequest();

    const anonymous = await api('GET', `/api/v1/oauth/requests/${requestId}`);
    const unknown = await read(randomUUID(), tenant.tokens.owner);
    const malformed = await read('not-a-uuid', tenant.tokens.owner);

    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(anonymous.body.error.code).toBe('UNAUTHORIZED');
    expect(unknown.status).toBe(404);
    expect(malformed.status).toBe(422);
    expect(malformed.body).toEqual({
      detail: [{ loc: ['path', 'request_id'], msg: expect.any(String), type: expect.any(String) }],
    });
  });

  it('belongs to the first user who opens it: to anyone else it does not exist', async () => {
    const first = await arrangeTenant();
    const second = await arrangeTenant();
    const { requestId } = await pendingRequest();

    expect((await read(requestId, first.tokens.owner)).status).toBe(200);

    expect((await read(requestId, second.tokens.owner)).status).toBe(404);
    expect((await decide(requestId, 'approve', second.tokens.owner)).status).toBe(404);
    expect((await decide(requestId, 'deny', second.tokens.owner)).status).toBe(404);
    expect((await read(requestId, first.tokens.owner)).body.status).toBe('pending');
  });
});

describe('approve and deny', () => {
  it('approve answers the redirect URI with a code, the state and iss', async () => {
    const tenant = await arrangeTenant();
    const { requestId, state } = await pendingRequest();

    const response = await decide(requestId, 'approve', tenant.tokens.editor);

    expect(response.status).toBe(200);
    const target = new URL(response.body.redirect_to);
    expect(`${target.origin}${target.pathname}`).toBe(REDIRECT_URI);
    expect(Object.fromEntries(target.searchParams)).toEqual({
      code: expect.any(String),
      state,
      iss: baseUrl(),
    });
    expect((await read(requestId, tenant.tokens.editor)).body.status).toBe('approved');
  });

  it('deny of a pre-registered client answers the redirect: error=access_denied with the state and iss', async () => {
    const tenant = await arrangeTenant();
    const client = await preRegisterClient();
    const state = `s-${randomUUID()}`;
    const { requestId } = await startAuthorization({ clientId: client.client_id, state });

    const response = await decide(requestId as string, 'deny', tenant.tokens.owner);

    expect(response.status).toBe(200);
    expect(response.body.client_link).toBeNull();
    const params = Object.fromEntries(new URL(response.body.redirect_to).searchParams);
    expect(params).toMatchObject({ error: 'access_denied', state, iss: baseUrl() });
    expect(params.code).toBeUndefined();
    expect((await read(requestId as string, tenant.tokens.owner)).body.status).toBe('denied');
  });

  it.each([
    ['dynamically registered', async () => (await pendingRequest()).requestId],
    [
      'described by a metadata document',
      async () => {
        const clientId = await publishClientDocument();
        return (await startAuthorization({ clientId, state: `s-${randomUUID()}` })).requestId as string;
      },
    ],
  ])(
    'deny of a client nobody vetted (%s) redirects nowhere: access_denied only as a plain link',
    async (_kind, request) => {
      const tenant = await arrangeTenant();
      const requestId = await request();

      const response = await decide(requestId, 'deny', tenant.tokens.owner);

      // Assess: no redirect_to, so the console sends the browser nowhere; the link it may show.
      expect(response.status).toBe(200);
      expect(response.body.redirect_to).toBeNull();
      const link = new URL(response.body.client_link);
      expect(`${link.origin}${link.pathname}`).toBe(REDIRECT_URI);
      expect(Object.fromEntries(link.searchParams)).toMatchObject({
        error: 'access_denied',
        state: expect.stringMatching(/^s-/),
        iss: baseUrl(),
      });
      expect(link.searchParams.get('code')).toBeNull();
      expect((await read(requestId, tenant.tokens.owner)).body.status).toBe('denied');
    },
  );

  it('refuses an ineligible user’s approval (403) but takes their denial', async () => {
    const tenant = await arrangeTenant();
    const { requestId } = await pendingRequest();

    const approval = await decide(requestId, 'approve', tenant.tokens.viewer);
    const denial = await decide(requestId, 'deny', tenant.tokens.viewer);

    expect(approval.status).toBe(403);
    expect(approval.body.error.code).toBe('FORBIDDEN');
    expect(denial.status).toBe(200);
  });

  it('decides once: a second decision is a 409, also when two race', async () => {
    const tenant = await arrangeTenant();
    const { requestId } = await pendingRequest();
    await decide(requestId, 'approve', tenant.tokens.owner);

    expect((await decide(requestId, 'approve', tenant.tokens.owner)).status).toBe(409);
    expect((await decide(requestId, 'deny', tenant.tokens.owner)).status).toBe(409);

    const raced = await pendingRequest();
    await read(raced.requestId, tenant.tokens.owner);
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        decide(raced.requestId, i % 2 ? 'deny' : 'approve', tenant.tokens.owner),
      ),
    );
    expect(outcomes.map((o) => o.status).sort()).toEqual([200, 409, 409, 409, 409]);
  });

  it('claims an unopened request in the decision itself: of two users deciding at once, the other finds nothing', async () => {
    const first = await arrangeTenant();
    const second = await arrangeTenant();
    const { requestId } = await pendingRequest();

    const outcomes = await Promise.all([
      decide(requestId, 'approve', first.tokens.owner),
      decide(requestId, 'deny', second.tokens.owner),
    ]);

    expect(outcomes.map((o) => o.status).sort()).toEqual([200, 404]);
    const winner = outcomes[0]?.status === 200 ? first : second;
    expect((await read(requestId, winner.tokens.owner)).body.status).toMatch(/^(approved|denied)$/);
    const loser = winner === first ? second : first;
    expect((await read(requestId, loser.tokens.owner)).status).toBe(404);
  });

  it('reads, approves and denies in two round trips, its reads sent beside the request’s', async () => {
    const tenant = await arrangeTenant();
    const roundTrips = (response: { headers: Headers }) =>
      Number(response.headers.get('x-local-dynamodb-round-trips'));
    await read((await pendingRequest()).requestId, tenant.tokens.owner);

    const opened = await read((await pendingRequest()).requestId, tenant.tokens.owner);
    const approved = await decide((await pendingRequest()).requestId, 'approve', tenant.tokens.owner);
    const denied = await decide((await pendingRequest()).requestId, 'deny', tenant.tokens.owner);

    expect([opened.status, approved.status, denied.status]).toEqual([200, 200, 200]);
    expect([roundTrips(opened), roundTrips(approved), roundTrips(denied)]).toEqual([2, 2, 2]);
  });

  it('answers 410 once the request has expired, and reads it as expired', async () => {
    const tenant = await arrangeTenant();
    const { requestId } = await pendingRequest();
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.oauthConsentRequest(requestId),
        UpdateExpression: 'SET expires_at = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
      }),
    );

    expect((await read(requestId, tenant.tokens.owner)).body.status).toBe('expired');
    expect((await decide(requestId, 'approve', tenant.tokens.owner)).status).toBe(410);
    expect((await decide(requestId, 'deny', tenant.tokens.owner)).status).toBe(410);
  });
});
