import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { hashSecret } from '#lib/oauth/hash-secret.ts';
import { api } from '../support/api.ts';
import {
  obtainTokens,
  postForm,
  REDIRECT_URI,
  registerClient,
  startAuthorization,
} from '../support/oauth.ts';
import { arrangeTenant } from '../support/tenants.ts';

/** An approved request's code, not yet exchanged. */
async function approvedCode() {
  const tenant = await arrangeTenant();
  const client = await registerClient();
  const started = await startAuthorization({ clientId: client.client_id, resource: undefined });
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

const refreshWith = (token: string, clientId: string) =>
  postForm('/oauth/token', { grant_type: 'refresh_token', refresh_token: token, client_id: clientId });

describe('authorization_code', () => {
  it.each([
    ['a wrong code_verifier', { code_verifier: 'x'.repeat(43) }, 'invalid_grant'],
    ['another redirect_uri', { redirect_uri: 'http://127.0.0.1:43117/other' }, 'invalid_grant'],
    ['another client_id', { client_id: 'someone-else' }, 'invalid_grant'],
    ['an unknown code', { code: 'not-a-code' }, 'invalid_grant'],
    ['another resource', { resource: 'https://other.example/mcp' }, 'invalid_target'],
    ['no code_verifier', { code_verifier: undefined }, 'invalid_request'],
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

  it('treats a second use of a code as theft: everything it issued is revoked', async () => {
    // Prepare: exchange the code once, and check the access token works on the edits API.
    const { form, clientId, tenant } = await approvedCode();
    const editsForm = { ...form };
    const first = await postForm('/oauth/token', editsForm);
    expect(first.status).toBe(200);

    // Act: use the code again.
    const second = await postForm('/oauth/token', editsForm);

    // Assess: refused, and the first exchange's refresh token no longer works.
    expect(second.body.error).toBe('invalid_grant');
    const refreshed = await refreshWith(first.body.refresh_token, clientId);
    expect(refreshed.body.error).toBe('invalid_grant');
    expect(tenant).toBeDefined();
  });
});

describe('refresh_token', () => {
  async function freshGrant() {
    const tenant = await arrangeTenant();
    const { client, tokens } = await obtainTokens({ userToken: tenant.tokens.owner });
    return { clientId: client.client_id, refreshToken: tokens.refresh_token as string };
  }

  it('rotates: each refresh returns a new refresh token and a new access token for the same grant', async () => {
    const { clientId, refreshToken } = await freshGrant();

    const first = await refreshWith(refreshToken, clientId);
    const second = await refreshWith(first.body.refresh_token, clientId);

    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(new Set([refreshToken, first.body.refresh_token, second.body.refresh_token]).size).toBe(3);
    expect(decodeJwt(second.body.access_token).gid).toBe(decodeJwt(first.body.access_token).gid);
    expect(second.headers.get('cache-control')).toBe('no-store');
  });

  it('lets two concurrent refreshes with the same token both succeed', async () => {
    const { clientId, refreshToken } = await freshGrant();

    const outcomes = await Promise.all([
      refreshWith(refreshToken, clientId),
      refreshWith(refreshToken, clientId),
    ]);

    expect(outcomes.map((o) => o.status)).toEqual([200, 200]);
    for (const outcome of outcomes)
      expect((await refreshWith(outcome.body.refresh_token, clientId)).status).toBe(200);
  });

  it('accepts the replaced token within 30 s, and revokes the grant when it comes back later', async () => {
    const { clientId, refreshToken } = await freshGrant();
    const rotated = await refreshWith(refreshToken, clientId);

    const withinGrace = await refreshWith(refreshToken, clientId);
    expect(withinGrace.status).toBe(200);

    // The grant was rotated more than 30 s ago.
    const grantId = String(decodeJwt(rotated.body.access_token).gid);
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.oauthGrant(grantId),
        UpdateExpression: 'SET rotated_at = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 31_000).toISOString() },
      }),
    );
    const afterGrace = await refreshWith(refreshToken, clientId);
    expect(afterGrace.body.error).toBe('invalid_grant');
    // Reuse revoked the whole grant: the newest token is dead too.
    expect((await refreshWith(withinGrace.body.refresh_token, clientId)).body.error).toBe('invalid_grant');
  });

  it('refuses a token presented by another client, or for another resource', async () => {
    const { clientId, refreshToken } = await freshGrant();

    const otherClient = await refreshWith(refreshToken, 'another-client');
    const otherResource = await postForm('/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: clientId,
      resource: 'https://other.example/mcp',
    });

    expect(otherClient.body.error).toBe('invalid_grant');
    expect(otherResource.body.error).toBe('invalid_target');
    expect((await refreshWith(refreshToken, clientId)).status).toBe(200);
  });
});
