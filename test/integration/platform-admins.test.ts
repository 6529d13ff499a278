import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#lib/db/keys.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { type DevIssuer, loadDevIssuer } from '../../infra/local/dev-issuer.ts';
import { LOCAL_SES_SENDER } from '../../infra/local/harness.ts';
import { type HarnessProcess, startHarnessProcess } from '../../infra/local/harness-process.ts';
import { buildHttpApiEvent, matchRoute } from '../../infra/local/http-api-event.ts';
import { ROOT_DIR } from '../../infra/local/paths.ts';
import { type ApiRequest, api } from '../support/api.ts';
import { checkIamReport } from '../support/iam-report.ts';

const run = promisify(execFile);

// Demoting admins changes state every other test file relies on (the seeded admin's token), so
// this file runs against a stack of its own.
let stack: HarnessProcess;
let issuer: DevIssuer;
let adminToken: string;
let ownerToken: string;

const call = (method: string, path: string, request: ApiRequest = {}) =>
  api(method, `/api/v1/admin${path}`, { ...request, baseUrl: stack.info.baseUrl });

interface SentMail {
  from: string;
  destination: { to: string[] };
  subject: string;
  body: { text?: string; html?: string };
}

async function mailsTo(email: string): Promise<SentMail[]> {
  const store = (await (await fetch(`${stack.info.credentials.ses_web_url}/store`)).json()) as {
    emails: SentMail[];
  };
  return store.emails.filter((mail) => mail.destination.to.includes(email));
}

async function entries(): Promise<{ id: string; kind: string; status: string; email: string }[]> {
  return (await call('GET', '/users', { token: adminToken })).body.data;
}

/** Invite and accept: a new active admin and a token for them. */
async function newAdmin(email: string): Promise<{ id: string; token: string }> {
  const invited = await call('POST', '/users', { token: adminToken, json: { email } });
  const token = await issuer.mintToken({ email });
  const accepted = await call('POST', `/platform-admin-invites/${invited.body.data.id}/accept`, { token });
  expect(accepted.status).toBe(200);
  return { id: invited.body.data.id, token };
}

beforeAll(async () => {
  stack = await startHarnessProcess();
  issuer = await loadDevIssuer(stack.info.stateDir);
  adminToken = stack.info.credentials.platform_admin_token;
  ownerToken = stack.info.credentials.businesses[0]?.tokens.owner ?? '';
}, 120_000);

afterAll(async () => {
  if (stack) checkIamReport(await stack.stop());
});

describe('platform admins', () => {
  it('invites: stores a pending invite and mails the invitee a link with its id', async () => {
    const response = await call('POST', '/users', {
      token: adminToken,
      json: { email: 'Invitee.One@Example.com', phone: '+49 30 1234567' },
    });

    expect(response.status).toBe(201);
    const invite = response.body.data;
    expect(invite).toMatchObject({
      kind: 'invite',
      status: 'pending',
      email: 'invitee.one@example.com',
      phone: '+49 30 1234567',
      invited_by: 'admin@platform.example',
    });
    expect(invite.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(invite.expires_at) - Date.parse(invite.invited_at)).toBe(7 * 86_400_000);

    const [mail, ...more] = await mailsTo('invitee.one@example.com');
    expect(more).toEqual([]);
    expect(mail?.from).toBe(LOCAL_SES_SENDER);
    expect(mail?.subject).toMatch(/invited/i);
    expect(mail?.body.text).toContain(invite.id);
    expect(mail?.body.html).toContain(invite.id);
    expect((await entries()).filter((entry) => entry.email === 'invitee.one@example.com')).toHaveLength(1);
  });

  it('re-inviting a pending e-mail sends again without a second invite; inviting an admin is a 409', async () => {
    const first = await call('POST', '/users', { token: adminToken, json: { email: 'again@example.com' } });
    const second = await call('POST', '/users', { token: adminToken, json: { email: 'AGAIN@example.com' } });

    expect(second.status).toBe(201);
    expect(second.body.data.id).toBe(first.body.data.id);
    expect(Date.parse(second.body.data.expires_at)).toBeGreaterThanOrEqual(
      Date.parse(first.body.data.expires_at),
    );
    expect(await mailsTo('again@example.com')).toHaveLength(2);
    expect((await entries()).filter((entry) => entry.email === 'again@example.com')).toHaveLength(1);

    const admin = await call('POST', '/users', {
      token: adminToken,
      json: { email: 'admin@platform.example' },
    });
    expect(admin.status).toBe(409);
  });

  it('accept: only the invitee (by verified e-mail, any case), exactly once', async () => {
    const invite = (
      await call('POST', '/users', { token: adminToken, json: { email: 'Mixed.Case@example.com' } })
    ).body.data;
    const path = `/platform-admin-invites/${invite.id}/accept`;

    const stranger = await call('POST', path, {
      token: await issuer.mintToken({ email: 'someone@example.com' }),
    });
    expect(stranger.status).toBe(403);
    const unverified = await call('POST', path, {
      token: await issuer.mintToken({ email: 'mixed.case@example.com', emailVerified: false }),
    });
    expect(unverified.status).toBe(403);

    const invitee = await issuer.mintToken({ email: 'MIXED.CASE@EXAMPLE.COM' });
    const accepted = await call('POST', path, { token: invitee });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toMatchObject({
      id: invite.id,
      kind: 'admin',
      status: 'active',
      expires_at: null,
    });
    expect(accepted.body.data.accepted_at).toEqual(expect.any(String));

    expect((await call('POST', path, { token: invitee })).status).toBe(409);
    expect((await call('GET', '/users', { token: invitee })).status).toBe(200);
  });

  it('answers 410 to accepting an expired invite, and lists it as expired', async () => {
    const invite = (await call('POST', '/users', { token: adminToken, json: { email: 'late@example.com' } }))
      .body.data;
    const db = DynamoDBDocumentClient.from(
      new DynamoDBClient({
        endpoint: stack.info.endpoints.dynamodb,
        region: 'us-east-1',
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      }),
    );
    await db.send(
      new UpdateCommand({
        TableName: stack.info.tableName,
        Key: keys.platformAdmin('late@example.com'),
        UpdateExpression: 'SET expires_at = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
      }),
    );
    db.destroy();

    const response = await call('POST', `/platform-admin-invites/${invite.id}/accept`, {
      token: await issuer.mintToken({ email: 'late@example.com' }),
    });
    expect(response.status).toBe(410);
    expect(response.body.error.code).toBe('GONE');
    expect((await entries()).find((entry) => entry.id === invite.id)?.status).toBe('expired');
  });

  it('updates names, phone and e-mail; an e-mail of another entry is a 409', async () => {
    const invite = (
      await call('POST', '/users', { token: adminToken, json: { email: 'rename.me@example.com' } })
    ).body.data;
    const body = {
      first_name: 'Grace',
      last_name: 'Hopper',
      email: 'grace@example.com',
      phone: '+1 555 0100',
    };

    const updated = await call('PATCH', `/users/${invite.id}`, { token: adminToken, json: body });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ ...body, id: invite.id, kind: 'invite' });
    const listed = (await entries()).filter((entry) => entry.id === invite.id);
    expect(listed.map((entry) => entry.email)).toEqual(['grace@example.com']);

    const clash = await call('PATCH', `/users/${invite.id}`, {
      token: adminToken,
      json: { ...body, email: 'admin@platform.example' },
    });
    expect(clash.status).toBe(409);
  });

  it('removes a pending invite and demotes an admin (who then loses access)', async () => {
    const invite = (
      await call('POST', '/users', { token: adminToken, json: { email: 'withdrawn@example.com' } })
    ).body.data;
    expect((await call('DELETE', `/users/${invite.id}`, { token: adminToken })).status).toBe(204);
    expect((await entries()).some((entry) => entry.id === invite.id)).toBe(false);

    const demoted = await newAdmin('short.term@example.com');
    expect((await call('DELETE', `/users/${demoted.id}`, { token: adminToken })).status).toBe(204);
    expect((await call('GET', '/users', { token: demoted.token })).status).toBe(403);
  });

  it('answers 401, 403 (not an admin), 404 and 422 as documented', async () => {
    const adminOps = routeTable.filter((route) => route.area === 'admin');
    for (const route of adminOps) {
      const path = route.path.replace('{entry_id}', 'abc').replace('{invite_id}', 'abc');
      const response = await api(route.method, path, { baseUrl: stack.info.baseUrl, json: route.example });
      expect(response.status, route.operationId).toBe(401);
    }
    for (const route of adminOps.filter((r) => r.operationId !== 'acceptPlatformAdminInvite')) {
      const path = route.path.replace('{entry_id}', 'abc');
      const response = await api(route.method, path, {
        baseUrl: stack.info.baseUrl,
        token: ownerToken,
        json: route.example,
      });
      expect(response.status, route.operationId).toBe(403);
    }
    expect(
      (
        await call('PATCH', '/users/unknown-id', {
          token: adminToken,
          json: { first_name: 'A', last_name: 'B', email: 'a@b.example' },
        })
      ).status,
    ).toBe(404);
    expect((await call('DELETE', '/users/unknown-id', { token: adminToken })).status).toBe(404);
    expect(
      (await call('POST', '/platform-admin-invites/unknown-id/accept', { token: ownerToken })).status,
    ).toBe(404);

    const invalid: [string, string, object | undefined][] = [
      ['POST', '/users', { email: 'not-an-email' }],
      ['POST', '/users', { email: 'ok@example.com', role: 'root' }],
      ['PATCH', '/users/abc', { first_name: 'A', email: 'a@b.example' }],
      ['DELETE', '/users/has%20space', undefined],
    ];
    for (const [method, path, json] of invalid) {
      expect((await call(method, path, { token: adminToken, json })).status, `${method} ${path}`).toBe(422);
    }
  });

  it('keeps the invite and answers 503 when SES is unreachable; the same POST later sends once', async () => {
    const route = routeTable.find((r) => r.operationId === 'invitePlatformAdmin');
    const match = route && matchRoute([route], 'POST', '/api/v1/admin/users');
    if (!match) throw new Error('route missing');
    const event = buildHttpApiEvent(
      {
        method: 'POST',
        url: '/api/v1/admin/users',
        rawHeaders: ['authorization', `Bearer ${adminToken}`, 'content-type', 'application/json'],
        body: Buffer.from(JSON.stringify({ email: 'ses.down@example.com' })),
        sourceIp: '127.0.0.1',
      },
      match,
    );
    const dir = mkdtempSync(join(tmpdir(), 'bps-ses-down-'));
    try {
      writeFileSync(join(dir, 'event.json'), JSON.stringify(event));
      // The invite handler, run once with SES pointed at a port nobody listens on.
      const { stdout } = await run(
        process.execPath,
        [
          '--import',
          'tsx',
          'infra/local/cli/invoke.ts',
          'invitePlatformAdmin',
          '--event',
          join(dir, 'event.json'),
        ],
        {
          cwd: ROOT_DIR,
          env: {
            ...process.env,
            ...stack.info.env,
            SES_ENDPOINT: 'http://127.0.0.1:9',
            POWERTOOLS_LOG_LEVEL: 'SILENT',
          },
          timeout: 60_000,
        },
      );
      const failed = JSON.parse(stdout);
      expect(failed.statusCode).toBe(503);
      expect(failed.headers['retry-after']).toMatch(/^\d+$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(
      (await entries()).filter((entry) => entry.email === 'ses.down@example.com').map((e) => e.status),
    ).toEqual(['pending']);
    expect(await mailsTo('ses.down@example.com')).toEqual([]);

    const retried = await call('POST', '/users', {
      token: adminToken,
      json: { email: 'ses.down@example.com' },
    });
    expect(retried.status).toBe(201);
    expect(await mailsTo('ses.down@example.com')).toHaveLength(1);
    expect((await entries()).filter((entry) => entry.email === 'ses.down@example.com')).toHaveLength(1);
  });

  it('never demotes the last admin: two admins demoting each other at once leave exactly one', async () => {
    const second = await newAdmin('second.admin@example.com');
    for (const entry of await entries()) {
      if (entry.kind === 'admin' && entry.email !== 'admin@platform.example' && entry.id !== second.id) {
        expect((await call('DELETE', `/users/${entry.id}`, { token: adminToken })).status).toBe(204);
      }
    }
    const admins = (await entries()).filter((entry) => entry.kind === 'admin');
    expect(admins.map((entry) => entry.email).sort()).toEqual([
      'admin@platform.example',
      'second.admin@example.com',
    ]);
    const seeded = admins.find((entry) => entry.email === 'admin@platform.example');

    const [byFirst, bySecond] = await Promise.all([
      call('DELETE', `/users/${second.id}`, { token: adminToken }),
      call('DELETE', `/users/${seeded?.id}`, { token: second.token }),
    ]);
    const statuses = [byFirst.status, bySecond.status].sort();
    expect(statuses[0]).toBe(204);
    expect([403, 409]).toContain(statuses[1]);

    const survivorToken = byFirst.status === 204 ? adminToken : second.token;
    const remaining = (await call('GET', '/users', { token: survivorToken })).body.data.filter(
      (e: { kind: string }) => e.kind === 'admin',
    );
    expect(remaining).toHaveLength(1);
    const self = await call('DELETE', `/users/${remaining[0].id}`, { token: survivorToken });
    expect(self.status).toBe(409);
    expect(self.body.error.message).toMatch(/last active platform admin/);
  });
});
