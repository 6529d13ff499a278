import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { operations } from '../support/dynamodb-operations.ts';
import {
  grantIdOf,
  mcpStatus,
  readGrant,
  readRefreshToken,
  refreshWith,
  setGrant,
} from '../support/grant-items.ts';
import { obtainTokens, postForm } from '../support/oauth.ts';
import { arrangeTenant } from '../support/tenants.ts';

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

  it('refreshes in three round trips: the signing key and the source count beside the refresh token, then the grant beside the client count', async () => {
    const { clientId, refreshToken } = await freshGrant();

    const response = await refreshWith(refreshToken, clientId);

    expect(response.status).toBe(200);
    expect(operations(response)).toEqual([
      'GetItem',
      'GetItem',
      'GetItem',
      'TransactWriteItems',
      'UpdateItem',
      'UpdateItem',
    ]);
    expect(Number(response.headers.get('x-local-dynamodb-round-trips'))).toBe(3);
  });

  it('lets eight concurrent refreshes with the same token all succeed, and keeps the grant', async () => {
    const { clientId, refreshToken } = await freshGrant();

    const outcomes = await Promise.all(Array.from({ length: 8 }, () => refreshWith(refreshToken, clientId)));

    // A busy grant may answer 503 (retry), never a revocation.
    for (const outcome of outcomes) expect([200, 503]).toContain(outcome.status);
    const succeeded = outcomes.filter((outcome) => outcome.status === 200);
    expect(succeeded.length).toBeGreaterThan(0);
    const grantId = grantIdOf(succeeded[0]?.body.access_token);
    expect((await readGrant(grantId))?.revoked_at).toBeUndefined();
    const later = await refreshWith(succeeded[0]?.body.refresh_token, clientId);
    expect(later.status).toBe(200);
    expect(await mcpStatus(later.body.access_token)).toBe(200);
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

  it('refuses a token presented by another client, or for another resource, and keeps the grant', async () => {
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

  it('refuses a refresh without client_id (RFC 6749 §3.2.1), and keeps the grant', async () => {
    const { clientId, refreshToken } = await freshGrant();

    const response = await postForm('/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    });

    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'invalid_request',
      error_description: expect.stringContaining('client_id'),
    });
    expect((await refreshWith(refreshToken, clientId)).status).toBe(200);
  });

  it('records each refresh as the grant’s last use', async () => {
    const { clientId, refreshToken } = await freshGrant();
    const first = await refreshWith(refreshToken, clientId);
    const grantId = grantIdOf(first.body.access_token);
    const longAgo = '2000-01-01T00:00:00.000Z';
    await setGrant(grantId, { last_used_at: longAgo });

    const second = await refreshWith(first.body.refresh_token, clientId);

    expect(second.status).toBe(200);
    expect(Date.parse(String((await readGrant(grantId))?.last_used_at))).toBeGreaterThan(Date.parse(longAgo));
  });
});

describe('a grant ends 90 days after consent, however often refreshed', () => {
  async function freshGrant() {
    const tenant = await arrangeTenant();
    const { client, tokens } = await obtainTokens({ userToken: tenant.tokens.owner });
    const grantId = grantIdOf(tokens.access_token);
    return { clientId: client.client_id, tokens, grantId };
  }

  it('stamps the end on the grant at consent, 90 days on', async () => {
    const before = Math.floor(Date.now() / 1000);
    const { grantId } = await freshGrant();

    const grant = await readGrant(grantId);

    expect(grant?.ends_at_epoch).toBeGreaterThanOrEqual(before + 90 * 24 * 60 * 60);
    expect(grant?.ends_at_epoch).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 90 * 24 * 60 * 60);
  });

  it('refuses a refresh once the end has passed, without treating it as reuse', async () => {
    const { clientId, tokens, grantId } = await freshGrant();
    await setGrant(grantId, { ends_at_epoch: Math.floor(Date.now() / 1000) - 1 });

    const response = await refreshWith(tokens.refresh_token as string, clientId);

    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_grant');
    expect(response.body.error_description).toContain('90 days');
    expect((await readGrant(grantId))?.revoked_at).toBeUndefined();
  });

  it('refuses the grant’s access tokens at the tool server once the end has passed', async () => {
    const { tokens, grantId } = await freshGrant();
    expect(await mcpStatus(tokens.access_token)).toBe(200);

    await setGrant(grantId, { ends_at_epoch: Math.floor(Date.now() / 1000) - 1 });

    expect(await mcpStatus(tokens.access_token)).toBe(401);
  });

  it('never issues a refresh token that outlives the grant', async () => {
    const { clientId, tokens, grantId } = await freshGrant();
    const endsAt = Math.floor(Date.now() / 1000) + 3600;
    await setGrant(grantId, { ends_at_epoch: endsAt });

    const refreshed = await refreshWith(tokens.refresh_token as string, clientId);

    expect(refreshed.status).toBe(200);
    expect((await readRefreshToken(refreshed.body.refresh_token))?.expires_at_epoch).toBe(endsAt);
    expect((await readGrant(grantId))?.expires_at_epoch).toBe(endsAt);
  });
});
