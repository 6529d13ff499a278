import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { api } from '../support/api.ts';
import { mcpStatus, refresh } from '../support/grant-probes.ts';
import { baseUrl, obtainTokens, postForm } from '../support/oauth.ts';
import { arrangeTenant } from '../support/tenants.ts';

/** A person's connected assistants: GET /api/v1/oauth/grants and DELETE …/{grant_id}. */
type Connection = Awaited<ReturnType<typeof obtainTokens>>;

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const grantIdOf = (connection: Connection) => String(decodeJwt(connection.tokens.access_token).gid);
const listGrants = (token: string, query = '') => api('GET', `/api/v1/oauth/grants${query}`, { token });
const idsOf = (response: { body: { grants: { grant_id: string }[] } }) =>
  response.body.grants.map((grant) => grant.grant_id);
const endGrant = (grantId: string, token: string) =>
  api('DELETE', `/api/v1/oauth/grants/${grantId}`, { token });

describe('GET /api/v1/oauth/grants', () => {
  it("lists the person's live grants, newest first, with what the console shows", async () => {
    const tenant = await arrangeTenant();
    const older = await obtainTokens({ userToken: tenant.tokens.owner, scope: 'edits:read' });
    const newer = await obtainTokens({
      userToken: tenant.tokens.owner,
      resource: `${baseUrl()}/api/v1/edits`,
    });

    const response = await listGrants(tenant.tokens.owner);

    expect(response.status).toBe(200);
    const shown = (connection: Connection, scopes: string[], resource: string) => ({
      grant_id: grantIdOf(connection),
      client_id: connection.client.client_id,
      client_name: 'Test Assistant',
      client_source: 'dynamic',
      scopes,
      resource,
      created_at: expect.stringMatching(ISO_TIME),
      last_used_at: expect.stringMatching(ISO_TIME),
    });
    expect(response.body).toEqual({
      grants: [
        shown(newer, ['edits:read', 'edits:write', 'offline_access'], `${baseUrl()}/api/v1/edits`),
        shown(older, ['edits:read'], `${baseUrl()}/mcp`),
      ],
      next_cursor: null,
    });
  });

  it('leaves out grants the client revoked and grants past their 90-day end', async () => {
    const tenant = await arrangeTenant();
    const [revoked, ended, live] = await Promise.all(
      [1, 2, 3].map(() => obtainTokens({ userToken: tenant.tokens.owner })),
    );
    const revocation = await postForm('/oauth/revoke', {
      token: revoked?.tokens.refresh_token as string,
      client_id: revoked?.client.client_id as string,
    });
    expect(revocation.status).toBe(200);
    // The 90-day end is far off; move this grant's end into the past, as time would.
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.oauthGrant(grantIdOf(ended as Connection)),
        UpdateExpression: 'SET ends_at_epoch = :past',
        ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
      }),
    );

    const response = await listGrants(tenant.tokens.owner);

    expect(response.body.grants.map((grant: { grant_id: string }) => grant.grant_id)).toEqual([
      grantIdOf(live as Connection),
    ]);
  });

  it('pages with limit and next_cursor, newest first; an ended grant in between leaves no short or empty page', async () => {
    // Prepare: five connections one after the other, the middle one ended.
    const tenant = await arrangeTenant();
    const connections: Connection[] = [];
    for (let i = 0; i < 5; i++) connections.push(await obtainTokens({ userToken: tenant.tokens.owner }));
    const [first, second, third, fourth, fifth] = connections.map(grantIdOf);
    expect((await endGrant(third as string, tenant.tokens.owner)).status).toBe(204);

    // Act
    const page1 = await listGrants(tenant.tokens.owner, '?limit=2');
    const page2 = await listGrants(
      tenant.tokens.owner,
      `?limit=2&cursor=${encodeURIComponent(page1.body.next_cursor)}`,
    );
    const whole = await listGrants(tenant.tokens.owner);

    // Assess: two full pages, the second the last (no cursor to an empty third); one page by default.
    expect(page1.status).toBe(200);
    expect(idsOf(page1)).toEqual([fifth, fourth]);
    expect(page1.body.next_cursor).toEqual(expect.any(String));
    expect(page2.status).toBe(200);
    expect(idsOf(page2)).toEqual([second, first]);
    expect(page2.body.next_cursor).toBeNull();
    expect(idsOf(whole)).toEqual([fifth, fourth, second, first]);
    expect(whole.body.next_cursor).toBeNull();
  });

  it("refuses a cursor from another person's list (422), and never lists another person's grants", async () => {
    const owner = await arrangeTenant();
    const other = await arrangeTenant();
    for (let i = 0; i < 2; i++) await obtainTokens({ userToken: owner.tokens.owner });
    const own = await obtainTokens({ userToken: other.tokens.owner });
    const ownersPage = await listGrants(owner.tokens.owner, '?limit=1');
    const cursor = ownersPage.body.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));

    const borrowed = await listGrants(other.tokens.owner, `?limit=1&cursor=${encodeURIComponent(cursor)}`);
    const altered = await listGrants(
      owner.tokens.owner,
      `?limit=1&cursor=${encodeURIComponent(`${cursor}x`)}`,
    );
    const othersList = await listGrants(other.tokens.owner);

    expect(borrowed.status).toBe(422);
    expect(borrowed.body).toEqual({
      detail: [{ loc: ['query', 'cursor'], msg: expect.any(String), type: 'cursor' }],
    });
    expect(altered.status).toBe(422);
    expect(idsOf(othersList)).toEqual([grantIdOf(own)]);
    for (const limit of ['0', '101', 'x']) {
      expect((await listGrants(owner.tokens.owner, `?limit=${limit}`)).status, limit).toBe(422);
    }
  });

  it('answers 401 without a console token, and refuses an assistant access token', async () => {
    const tenant = await arrangeTenant();
    const { tokens } = await obtainTokens({
      userToken: tenant.tokens.owner,
      resource: `${baseUrl()}/api/v1/edits`,
    });

    const anonymous = await api('GET', '/api/v1/oauth/grants');
    const assistant = await listGrants(tokens.access_token);

    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(assistant.status).toBe(401);
  });
});

describe('DELETE /api/v1/oauth/grants/{grant_id}', () => {
  it('ends the grant at once: its access token is 401 at /mcp, its refresh token invalid_grant; other grants keep working', async () => {
    const tenant = await arrangeTenant();
    const ending = await obtainTokens({ userToken: tenant.tokens.owner });
    const kept = await obtainTokens({ userToken: tenant.tokens.owner });
    expect(await mcpStatus(ending.tokens.access_token)).toBe(200);

    const response = await endGrant(grantIdOf(ending), tenant.tokens.owner);

    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    // One conditional write finds the grant, checks whose it is and ends it.
    expect(response.headers.get('x-local-dynamodb-operations')).toBe('UpdateItem');
    expect(await mcpStatus(ending.tokens.access_token)).toBe(401);
    const refused = await refresh(ending.tokens.refresh_token as string, ending.client.client_id);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_grant');
    expect(await mcpStatus(kept.tokens.access_token)).toBe(200);
    expect((await refresh(kept.tokens.refresh_token as string, kept.client.client_id)).status).toBe(200);
    const listed = await listGrants(tenant.tokens.owner);
    expect(listed.body.grants.map((grant: { grant_id: string }) => grant.grant_id)).toEqual([
      grantIdOf(kept),
    ]);
  });

  it('answers 204 again for a grant of yours that has already ended (a retried DELETE)', async () => {
    const tenant = await arrangeTenant();
    const connection = await obtainTokens({ userToken: tenant.tokens.owner });

    const first = await endGrant(grantIdOf(connection), tenant.tokens.owner);
    const again = await endGrant(grantIdOf(connection), tenant.tokens.owner);

    expect([first.status, again.status]).toEqual([204, 204]);
  });

  it("answers 404 for another person's grant, exactly as for an unknown id, and the grant keeps working", async () => {
    const victim = await arrangeTenant();
    const attacker = await arrangeTenant();
    const connection = await obtainTokens({ userToken: victim.tokens.owner });
    const grantId = grantIdOf(connection);

    const foreign = await endGrant(grantId, attacker.tokens.owner);
    const unknownId = randomUUID();
    const unknown = await endGrant(unknownId, attacker.tokens.owner);
    const attackersList = await listGrants(attacker.tokens.owner);

    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(foreign.body.error.code).toBe(unknown.body.error.code);
    expect(foreign.body.error.message.replace(grantId, 'ID')).toBe(
      unknown.body.error.message.replace(unknownId, 'ID'),
    );
    expect(attackersList.body).toEqual({ grants: [], next_cursor: null });
    expect(await mcpStatus(connection.tokens.access_token)).toBe(200);
    expect((await listGrants(victim.tokens.owner)).body.grants).toHaveLength(1);
  });

  it('answers 422 (HTTPValidationError) for a grant id that is not a UUID, and 401 without a token', async () => {
    const tenant = await arrangeTenant();

    const malformed = await endGrant('not-a-uuid', tenant.tokens.owner);
    const anonymous = await api('DELETE', `/api/v1/oauth/grants/${randomUUID()}`);

    expect(malformed.status).toBe(422);
    expect(malformed.body).toEqual({
      detail: [{ loc: ['path', 'grant_id'], msg: expect.any(String), type: expect.any(String) }],
    });
    expect(anonymous.status).toBe(401);
  });
});
