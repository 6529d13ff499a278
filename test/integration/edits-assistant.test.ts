import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importJWK, type JWK, SignJWT } from 'jose';
import { describe, expect, inject, it } from 'vitest';
import { putMember } from '#lib/businesses/business-store.ts';
import { localUserId } from '../../infra/local/dev-issuer.ts';
import { api } from '../support/api.ts';
import { baseUrl, obtainTokens, postForm } from '../support/oauth.ts';
import { arrangeTenant } from '../support/tenants.ts';

const edits = (path: string) => `/api/v1/edits${path}`;
const editsResource = () => `${baseUrl()}/api/v1/edits`;
const resourceMetadata = () => `${baseUrl()}/.well-known/oauth-protected-resource/api/v1/edits`;

/** An assistant's access token for the edits API, through the real OAuth flow. */
async function assistantToken(userToken: string, scope: string) {
  const { client, tokens } = await obtainTokens({ userToken, scope, resource: editsResource() });
  return { token: tokens.access_token, clientId: client.client_id };
}

describe('the edits API with assistant tokens', () => {
  it('runs the worked example with edits:write, and the Change History names the assistant and its user', async () => {
    // Prepare
    const tenant = await arrangeTenant();
    const { token, clientId } = await assistantToken(tenant.tokens.owner, 'edits:read edits:write');

    // Act: open, snapshot, stage two creates, untick the second, apply, revert.
    const session = await api('POST', edits('/sessions'), {
      token,
      json: { business_id: tenant.businessId },
    });
    expect(session.status).toBe(201);
    expect(session.body.data.client_id).toBe(clientId);
    const snapshot = await api('GET', edits(`/sessions/${session.body.data.id}/snapshot`), { token });
    expect(snapshot.status).toBe(200);
    const staged = await api('POST', edits(`/sessions/${session.body.data.id}/changesets`), {
      token,
      json: {
        summary: 'Answer two questions',
        items: [
          {
            entity: 'faq',
            action: 'create',
            fields: { question: 'Open on Sundays?', answer: 'From 8 to 12.' },
          },
          { entity: 'faq', action: 'create', fields: { question: 'Gluten-free?', answer: 'Some.' } },
        ],
      },
    });
    expect(staged.status).toBe(201);
    const changesetId = staged.body.data.id;
    const unticked = await api(
      'PATCH',
      edits(`/changesets/${changesetId}/items/${staged.body.data.items[1].id}`),
      {
        token,
        json: { ticked: false },
      },
    );
    expect(unticked.status).toBe(200);
    const applied = await api('POST', edits(`/changesets/${changesetId}/apply`), { token });
    expect(applied.status).toBe(200);
    expect(applied.body.data.items.map((item: { status: string }) => item.status)).toEqual([
      'applied',
      'skipped',
    ]);

    // Assess: the history entry names the user the assistant acted for, and the assistant.
    const log = await api('GET', edits(`/businesses/${tenant.businessId}/change-log?limit=1`), { token });
    expect(log.body.data[0].actor).toEqual({
      type: 'assistant',
      id: localUserId(tenant.emails.owner),
      client_id: clientId,
    });

    const reverted = await api('POST', edits(`/changesets/${changesetId}/revert`), { token });
    expect(reverted.status).toBe(200);
    expect(reverted.body.data.items[0].status).toBe('reverted');
  });

  it('lets edits:read read but not write: 403 insufficient_scope naming the scope', async () => {
    const tenant = await arrangeTenant();
    const { token } = await assistantToken(tenant.tokens.owner, 'edits:read');
    // The person opened the session in the console; their read-only assistant may read through it.
    const session = await api('POST', edits('/sessions'), {
      token: tenant.tokens.owner,
      json: { business_id: tenant.businessId },
    });

    const snapshot = await api('GET', edits(`/sessions/${session.body.data.id}/snapshot`), { token });
    const claims = await api('GET', edits('/claims'), { token });
    const stage = await api('POST', edits(`/sessions/${session.body.data.id}/changesets`), {
      token,
      json: { items: [{ entity: 'faq', action: 'create', fields: { question: 'Q?', answer: 'A.' } }] },
    });
    const open = await api('POST', edits('/sessions'), { token, json: { business_id: tenant.businessId } });

    expect(snapshot.status).toBe(200);
    expect(claims.body.data).toEqual([
      { business_id: tenant.businessId, name: expect.any(String), role: 'owner' },
    ]);
    for (const refused of [stage, open]) {
      expect(refused.status).toBe(403);
      expect(refused.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${resourceMetadata()}", error="insufficient_scope", scope="edits:write"`,
      );
    }
  });

  it('answers 401 with resource_metadata to no token, a token for the tool server, an expired or a revoked token', async () => {
    const tenant = await arrangeTenant();
    const forMcp = await obtainTokens({ userToken: tenant.tokens.owner });
    const revoked = await assistantToken(tenant.tokens.owner, 'edits:read edits:write');
    await postForm('/oauth/revoke', { token: revoked.token, client_id: revoked.clientId });
    const expired = await expiredAssistantToken(tenant.emails.owner);

    const cases = {
      none: undefined,
      mcp: forMcp.tokens.access_token,
      expired,
      revoked: revoked.token,
    };
    for (const [name, token] of Object.entries(cases)) {
      const response = await api('GET', edits('/claims'), token ? { token } : {});
      expect(response.status, name).toBe(401);
      expect(response.headers.get('www-authenticate'), name).toContain(
        `resource_metadata="${resourceMetadata()}"`,
      );
      expect(response.headers.get('www-authenticate'), name).toContain('scope="edits:read edits:write"');
    }
  });

  it('keeps the assistant inside its user’s businesses: another tenant’s business is a 403', async () => {
    const tenant = await arrangeTenant();
    const other = await arrangeTenant();
    const { token } = await assistantToken(tenant.tokens.owner, 'edits:read edits:write');

    const open = await api('POST', edits('/sessions'), { token, json: { business_id: other.businessId } });
    const summary = await api('GET', edits(`/businesses/${other.businessId}`), { token });

    expect(open.status).toBe(403);
    expect(summary.status).toBe(403);
  });

  it('loses a business when its user does', async () => {
    const tenant = await arrangeTenant();
    const { token } = await assistantToken(tenant.tokens.editor, 'edits:read edits:write');
    const session = await api('POST', edits('/sessions'), {
      token,
      json: { business_id: tenant.businessId },
    });
    expect(session.status).toBe(201);

    await putMember(tenant.businessId, localUserId(tenant.emails.editor), 'viewer');

    const snapshot = await api('GET', edits(`/sessions/${session.body.data.id}/snapshot`), { token });
    expect(snapshot.status).toBe(403);
  });

  it('reads with one auth call more than a console token (the grant check), counted in the bench too', async () => {
    const tenant = await arrangeTenant();
    const { token } = await assistantToken(tenant.tokens.owner, 'edits:read edits:write');

    const response = await api('GET', edits(`/businesses/${tenant.businessId}`), { token });

    expect(response.status).toBe(200);
    expect(Number(response.headers.get('x-local-dynamodb-auth-calls'))).toBe(1);
  });
});

/** A token signed with the harness's real key, for the edits resource, that expired a minute ago. */
async function expiredAssistantToken(email: string): Promise<string> {
  const keys = JSON.parse(
    readFileSync(join(inject('harness').stateDir, 'oauth-signing-key.json'), 'utf8'),
  ) as {
    current: JWK;
  };
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ client_id: 'c', scope: 'edits:read edits:write', gid: 'g' })
    .setProtectedHeader({ alg: 'ES256', kid: keys.current.kid ?? '', typ: 'at+jwt' })
    .setIssuer(baseUrl())
    .setAudience(editsResource())
    .setSubject(localUserId(email))
    .setIssuedAt(now - 1000)
    .setExpirationTime(now - 60)
    .sign(await importJWK(keys.current, 'ES256'));
}
