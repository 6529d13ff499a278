import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { api } from '../support/api.ts';
import { failsInOneLine, runOperatorCli, securityEvents } from '../support/cli-runs.ts';
import { documentHits, scriptDocument } from '../support/document-host.ts';
import { mcpStatus, refresh } from '../support/grant-probes.ts';
import { obtainTokens, postForm, REDIRECT_URI, startAuthorization } from '../support/oauth.ts';
import { arrangeTenant } from '../support/tenants.ts';

/**
 * An operator stopping a client with `npm run oauth-client`: revoke a registered client, block and
 * unblock a metadata-document client by URL. Each must end the client's grants at once.
 */
const oauthClient = (args: string[]) => runOperatorCli('oauth-client.ts', args);

type Connection = Awaited<ReturnType<typeof obtainTokens>>;

/** What an assistant holds is dead: its access token is 401 at /mcp, its refresh token invalid_grant. */
async function expectEnded(connection: Connection) {
  expect(await mcpStatus(connection.tokens.access_token)).toBe(401);
  const refused = await refresh(connection.tokens.refresh_token as string, connection.client.client_id);
  expect(refused.status).toBe(400);
  expect(refused.body.error).toBe('invalid_grant');
}

const publicClient = (clientId: string) => ({ client_id: clientId, token_endpoint_auth_method: 'none' });

describe('npm run oauth-client -- revoke', () => {
  it("ends every grant of the client at once, refuses it from now on, and leaves other clients' grants alone", {
    timeout: 120_000,
  }, async () => {
    const [first, second] = await Promise.all([arrangeTenant(), arrangeTenant()]);
    const created = JSON.parse(
      (await oauthClient(['create', '--name', 'Operator-known assistant', '--redirect-uri', REDIRECT_URI]))
        .stdout,
    );
    const client = publicClient(created.client_id);
    const connections = [
      await obtainTokens({ userToken: first.tokens.owner, client }),
      await obtainTokens({ userToken: second.tokens.owner, client }),
    ];
    const bystander = await obtainTokens({ userToken: first.tokens.owner });
    // A code approved before the revocation and exchanged after it.
    const pending = await startAuthorization({ clientId: created.client_id });
    const approved = await api('POST', `/api/v1/oauth/requests/${pending.requestId}/approve`, {
      token: first.tokens.owner,
    });

    const { stdout, stderr } = await oauthClient(['revoke', created.client_id, '--yes']);

    expect(JSON.parse(stdout)).toMatchObject({
      client_id: created.client_id,
      revoked_at: expect.any(String),
      grants_ended: 2,
    });
    expect(securityEvents(stderr)).toEqual([
      expect.objectContaining({
        security_event: 'client_revoked',
        client_id: created.client_id,
        grants_ended: 2,
      }),
    ]);
    for (const connection of connections) await expectEnded(connection);
    const exchanged = await postForm('/oauth/token', {
      grant_type: 'authorization_code',
      code: new URL(approved.body.redirect_to).searchParams.get('code') as string,
      redirect_uri: REDIRECT_URI,
      code_verifier: pending.verifier,
      client_id: created.client_id,
    });
    expect(exchanged.body.error).toBe('invalid_grant');
    expect((await startAuthorization({ clientId: created.client_id })).response.status).toBe(400);
    expect(await mcpStatus(bystander.tokens.access_token)).toBe(200);
    // Running it again finds nothing left to end.
    expect(JSON.parse((await oauthClient(['revoke', created.client_id, '--yes'])).stdout).grants_ended).toBe(
      0,
    );
  });
});

describe('npm run oauth-client -- block / unblock', () => {
  it('blocks a metadata-document client by URL: its grants end, authorize refuses it without fetching; unblock lets it in again', {
    timeout: 120_000,
  }, async () => {
    const tenant = await arrangeTenant();
    const host = inject('documentHost');
    const path = `/clients/${randomUUID()}.json`;
    const url = `${host}${path}`;
    await scriptDocument(host, path, {
      status: 200,
      body: JSON.stringify({ client_id: url, client_name: 'Doc Assistant', redirect_uris: [REDIRECT_URI] }),
    });
    const connection = await obtainTokens({ userToken: tenant.tokens.owner, client: publicClient(url) });
    expect(await mcpStatus(connection.tokens.access_token)).toBe(200);

    const blocked = await oauthClient(['block', url]);

    expect(JSON.parse(blocked.stdout)).toEqual({
      client_id: url,
      blocked_at: expect.any(String),
      grants_ended: 1,
    });
    expect(securityEvents(blocked.stderr)).toEqual([
      expect.objectContaining({ security_event: 'client_blocked', client_id: url, grants_ended: 1 }),
    ]);
    await expectEnded(connection);
    const fetchedBefore = await documentHits(host, path);
    const refused = await startAuthorization({ clientId: url });
    expect(refused.response.status).toBe(400);
    expect(refused.location).toBeUndefined();
    expect(await documentHits(host, path)).toBe(fetchedBefore);
    const listed = JSON.parse((await oauthClient(['list'])).stdout);
    expect(listed.blocked).toContainEqual({ client_id: url, blocked_at: expect.any(String) });

    const unblocked = await oauthClient(['unblock', url]);

    expect(JSON.parse(unblocked.stdout)).toEqual({ client_id: url, unblocked: true });
    expect(securityEvents(unblocked.stderr)).toEqual([
      expect.objectContaining({ security_event: 'client_unblocked', client_id: url }),
    ]);
    const again = await obtainTokens({ userToken: tenant.tokens.owner, client: publicClient(url) });
    expect(await mcpStatus(again.tokens.access_token)).toBe(200);
    // The grant the block ended stays ended.
    await expectEnded(connection);
    const relisted = JSON.parse((await oauthClient(['list'])).stdout);
    expect(relisted.blocked.map((block: { client_id: string }) => block.client_id)).not.toContain(url);
  });

  it('refuses in one line: block of a non-URL, revoke of a URL, unblock of a URL that is not blocked', {
    timeout: 120_000,
  }, async () => {
    const url = `https://assistant.example/clients/${randomUUID()}.json`;

    expect(await failsInOneLine(oauthClient(['block', 'not-a-url']))).toContain(
      'not a client metadata document URL',
    );
    expect(await failsInOneLine(oauthClient(['revoke', url, '--yes']))).toContain('block it instead');
    expect(await failsInOneLine(oauthClient(['unblock', url]))).toContain('is not blocked');
  });
});
