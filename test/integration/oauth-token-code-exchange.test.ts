import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { hashSecret } from '#lib/oauth/hash-secret.ts';
import { api } from '../support/api.ts';
import { operations } from '../support/dynamodb-operations.ts';
import { grantIdOf, mcpStatus, readGrant, refreshWith, setGrant } from '../support/grant-items.ts';
import {
  OFFLINE_SCOPE,
  postForm,
  REDIRECT_URI,
  registerClient,
  startAuthorization,
} from '../support/oauth.ts';
import { arrangeTenant } from '../support/tenants.ts';

/** An approved request's code, not yet exchanged (by default for a grant with refresh tokens). */
async function approvedCode(scope = OFFLINE_SCOPE) {
  const tenant = await arrangeTenant();
  const client = await registerClient();
  const started = await startAuthorization({ clientId: client.client_id, resource: undefined, scope });
  const decision = await api('POST', `/api/v1/oauth/requests/${started.requestId}/approve`, {
    token: tenant.tokens.owner,
  });
  const code = new URL(decision.body.redirect_to).searchParams.get('code') as string;
  const form = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    code_verifier: started.verifier,
    client_id: client.client_id,
  };
  return { tenant, clientId: client.client_id, code, form };
}

describe('authorization_code', () => {
  it.each([
    ['a wrong code_verifier', { code_verifier: 'x'.repeat(43) }, 'invalid_grant'],
    ['another redirect_uri', { redirect_uri: 'http://127.0.0.1:43117/other' }, 'invalid_grant'],
    ['another client_id', { client_id: 'someone-else' }, 'invalid_grant'],
    ['an unknown code', { code: 'not-a-code' }, 'invalid_grant'],
    ['another resource', { resource: 'https://other.example/mcp' }, 'invalid_target'],
    ['no code_verifier', { code_verifier: undefined }, 'invalid_request'],
    ['no client_id', { client_id: undefined }, 'invalid_request'],
    ['an unknown grant_type', { grant_type: 'password' }, 'unsupported_grant_type'],
  ])('refuses %s (RFC 6749 §5.2, no-store)', async (_name, change, error) => {
    const { form } = await approvedCode();
    const sent = Object.fromEntries(
      Object.entries({ ...form, ...change }).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    );

    const response = await postForm('/oauth/token', sent);

    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error, error_description: expect.any(String) });
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('exchanges a code in two round trips: the signing key and the source count go beside the code', async () => {
    const { form } = await approvedCode();

    const response = await postForm('/oauth/token', form);

    expect(response.status).toBe(200);
    expect(operations(response)).toEqual(['GetItem', 'GetItem', 'TransactWriteItems', 'UpdateItem']);
    expect(Number(response.headers.get('x-local-dynamodb-round-trips'))).toBe(2);
  });

  it('refuses a parameter sent twice, and a JSON body', async () => {
    const { form } = await approvedCode();
    const twice = new URLSearchParams(form);
    twice.append('code', form.code);

    const duplicated = await fetch(new URL('/oauth/token', process.env.OAUTH_ISSUER), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: twice,
    });
    const json = await api('POST', '/oauth/token', { json: form });

    expect(duplicated.status).toBe(400);
    expect(((await duplicated.json()) as { error: string }).error).toBe('invalid_request');
    expect(json.body.error).toBe('invalid_request');
  });

  it('keeps a registration that completes a grant, and refuses the code of one that expired during the consent', async () => {
    const clientItem = async (clientId: string) =>
      (await dynamo.send(new GetCommand({ TableName: tableName, Key: keys.oauthClient(clientId) }))).Item;
    const kept = await approvedCode();
    expect((await clientItem(kept.clientId))?.expires_at_epoch).toEqual(expect.any(Number));

    expect((await postForm('/oauth/token', kept.form)).status).toBe(200);
    expect((await clientItem(kept.clientId))?.expires_at_epoch).toBeUndefined();

    const late = await approvedCode();
    const past = Math.floor(Date.now() / 1000) - 1;
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.oauthClient(late.clientId),
        UpdateExpression: 'SET expires_at_epoch = :past',
        ExpressionAttributeValues: { ':past': past },
      }),
    );
    const refused = await postForm('/oauth/token', late.form);

    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_grant');
    expect((await clientItem(late.clientId))?.expires_at_epoch).toBe(past);
  });

  it('refuses an expired code', async () => {
    const { form, code } = await approvedCode();
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.oauthCode(hashSecret(code)),
        UpdateExpression: 'SET expires_at = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
      }),
    );

    const response = await postForm('/oauth/token', form);

    expect(response.body.error).toBe('invalid_grant');
  });

  it('treats a second use of a code by its own client as theft: everything it issued is revoked', async () => {
    // Prepare: exchange the code once, and check the access token works at the tool server.
    const { form, clientId } = await approvedCode();
    const first = await postForm('/oauth/token', form);
    expect(first.status).toBe(200);
    expect(await mcpStatus(first.body.access_token)).toBe(200);

    // Act: the same client, redirect URI and verifier use the code again.
    const second = await postForm('/oauth/token', form);

    // Assess: refused, and the first exchange's tokens no longer work.
    expect(second.body.error).toBe('invalid_grant');
    expect((await refreshWith(first.body.refresh_token, clientId)).body.error).toBe('invalid_grant');
    expect(await mcpStatus(first.body.access_token)).toBe(401);
  });

  it.each([
    ['another client', { client_id: 'someone-else' }],
    ['a wrong PKCE verifier', { code_verifier: 'x'.repeat(43) }],
    ['another redirect_uri', { redirect_uri: 'http://127.0.0.1:43117/other' }],
  ])('refuses a spent code replayed with %s, and leaves its grant alone', async (_name, change) => {
    // Prepare: the code is exchanged by its client; a stranger found it in a log.
    const { form, clientId } = await approvedCode();
    const first = await postForm('/oauth/token', form);
    expect(first.status).toBe(200);

    // Act
    const replay = await postForm('/oauth/token', { ...form, ...change });

    // Assess: refused, and the grant lives on.
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expect((await readGrant(grantIdOf(first.body.access_token)))?.revoked_at).toBeUndefined();
    expect((await refreshWith(first.body.refresh_token, clientId)).status).toBe(200);
  });
});

describe('offline_access decides whether a refresh token is issued', () => {
  it('exchanges a code without offline_access for an access token alone: a session that ends with it', async () => {
    const before = Math.floor(Date.now() / 1000);
    const { form, tenant } = await approvedCode('edits:read edits:write');

    const response = await postForm('/oauth/token', form);

    // Assess: no refresh token; the scope says what was granted; the grant ends with the token.
    expect(response.status).toBe(200);
    expect(response.body).not.toHaveProperty('refresh_token');
    expect(response.body).toMatchObject({ scope: 'edits:read edits:write', expires_in: 900 });
    expect(decodeJwt(response.body.access_token).scope).toBe('edits:read edits:write');
    const grantId = grantIdOf(response.body.access_token);
    const grant = await readGrant(grantId);
    expect(grant?.ends_at_epoch).toBeGreaterThanOrEqual(before + 900);
    expect(grant?.ends_at_epoch).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 900);
    expect(grant?.expires_at_epoch).toBe(grant?.ends_at_epoch);
    const listed = async () =>
      (await api('GET', '/api/v1/oauth/grants', { token: tenant.tokens.owner })).body.grants.map(
        (listedGrant: { grant_id: string }) => listedGrant.grant_id,
      );
    expect(await listed()).toEqual([grantId]);
    expect(await mcpStatus(response.body.access_token)).toBe(200);

    // Once its access token's time is up, it is over: not among the connected assistants, refused.
    const past = Math.floor(Date.now() / 1000) - 1;
    await setGrant(grantId, { ends_at_epoch: past, expires_at_epoch: past });
    expect(await listed()).toEqual([]);
    expect(await mcpStatus(response.body.access_token)).toBe(401);
  });

  it('exchanges a code with offline_access for a refresh token too, and says so in scope', async () => {
    const { form, clientId } = await approvedCode('edits:read offline_access');

    const response = await postForm('/oauth/token', form);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      refresh_token: expect.stringMatching(/^rt_/),
      scope: 'edits:read offline_access',
    });
    const grant = await readGrant(grantIdOf(response.body.access_token));
    expect(grant?.ends_at_epoch).toBeGreaterThan(Math.floor(Date.now() / 1000) + 89 * 24 * 60 * 60);
    const refreshed = await refreshWith(response.body.refresh_token, clientId);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.scope).toBe('edits:read offline_access');
  });
});
