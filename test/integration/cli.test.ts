import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { routeTable } from '#lib/routes/route-table.ts';
import { png } from '../../infra/local/demo-images.ts';
import { ensureTable } from '../../infra/local/emulators.ts';
import { ROOT_DIR } from '../../infra/local/paths.ts';
import { api } from '../support/api.ts';
import { failsInOneLine, run } from '../support/cli-runs.ts';

/** Run one of the package's CLIs the way `npm run <name>` does, against the test harness. */
async function cli(script: string, args: string[], env: Record<string, string> = {}) {
  const harness = inject('harness');
  return run(process.execPath, ['--import', 'tsx', `infra/local/cli/${script}.ts`, ...args], {
    cwd: ROOT_DIR,
    env: { ...process.env, TABLE_NAME: '', LOCAL_STATE_DIR: harness.stateDir, ...env },
    timeout: 60_000,
  });
}

describe('command-line tools', () => {
  const harness = inject('harness');
  const business = harness.credentials.businesses[0];
  const schedulePath = `/api/v1/businesses/${business?.id}/blog_posts/auto_schedule`;

  it('token mints a console token the service accepts', async () => {
    const { stdout } = await cli('token', ['--email', 'owner@harbor-bakery.example']);
    const response = await api('GET', schedulePath, { token: stdout.trim() });

    expect([200, 404]).toContain(response.status);
  });

  it('token refuses a missing e-mail with a clear error', async () => {
    await expect(cli('token', [])).rejects.toMatchObject({ stderr: expect.stringContaining('--email') });
  });

  it('event prints a payload 2.0 event for an operation of each area', async () => {
    // One process per route would take a minute; every route's sample event is also built and
    // invoked by the bundle test.
    const onePerArea = [...new Map(routeTable.map((route) => [route.area, route])).values()];
    for (const route of onePerArea) {
      const { stdout } = await cli('event', [route.operationId]);
      const event = JSON.parse(stdout);
      expect(event).toMatchObject({ version: '2.0', routeKey: `${route.method} ${route.path}` });
    }
    // A process per area: near 30 s on a busy 2-core machine.
  }, 90_000);

  it("event addresses the running stack's host", async () => {
    const event = JSON.parse((await cli('event', ['getBlogAutoSchedule'])).stdout);

    expect(event.headers.host).toBe(new URL(harness.baseUrl).host);
  });

  it('every CLI error is one line: unknown operation (naming the closest), missing file, unknown id, bad flag', async () => {
    expect(await failsInOneLine(cli('event', ['getBlogAutoSchedul']))).toBe(
      "error: unknown operation 'getBlogAutoSchedul'; did you mean getBlogAutoSchedule?",
    );
    expect(await failsInOneLine(cli('invoke', ['listfaqs']))).toContain('did you mean listFaqs?');
    expect(
      await failsInOneLine(cli('invoke', ['getBlogAutoSchedule', '--event', 'no/such/event.json'])),
    ).toBe('error: --event: no/such/event.json does not exist');
    expect(
      await failsInOneLine(cli('agent-key', ['revoke', '00000000-0000-4000-8000-000000000000', '--yes'])),
    ).toContain('No agent key with id 00000000-0000-4000-8000-000000000000');
    expect(await failsInOneLine(cli('oauth-client', ['revoke', 'no-such-client', '--yes']))).toContain(
      'No client',
    );
    // A usage mistake is exit 2, its line followed by the usage line (test/unit/tool-options.test.ts).
    await expect(cli('agent-key', ['list', '--bogus'])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^error: Unknown option '--bogus'.*\nUsage: npm run agent-key /),
    });
    await expect(cli('token', ['--email'])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--email'),
    });
  }, 120_000);

  it('invoke runs a handler against the running stack with a sample or a given event', async () => {
    const put = JSON.parse((await cli('invoke', ['putBlogAutoSchedule'])).stdout);
    expect(put.statusCode).toBe(200);
    expect(put.body.data.business_id).toBe(business?.id);

    const dir = mkdtempSync(join(tmpdir(), 'bps-event-'));
    try {
      const event = JSON.parse((await cli('event', ['getBlogAutoSchedule'])).stdout);
      delete event.headers.authorization;
      const file = join(dir, 'event.json');
      await import('node:fs/promises').then((fs) => fs.writeFile(file, JSON.stringify(event)));
      const unauthenticated = JSON.parse(
        (await cli('invoke', ['getBlogAutoSchedule', '--event', file])).stdout,
      );
      expect(unauthenticated.statusCode).toBe(401);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('agent-key creates, lists and revokes keys', async () => {
    const created = JSON.parse(
      (
        await cli('agent-key', [
          'create',
          '--name',
          'cli-test',
          '--businesses',
          business?.id ?? '',
          '--scopes',
          'read',
        ])
      ).stdout,
    );
    expect(created.key).toMatch(/^agk_/);

    const listed = JSON.parse((await cli('agent-key', ['list'])).stdout);
    expect(listed.map((k: { key_id: string }) => k.key_id)).toContain(created.key_id);
    expect(JSON.stringify(listed)).not.toContain(created.key);

    const revoked = JSON.parse((await cli('agent-key', ['revoke', created.key_id, '--yes'])).stdout);
    expect(revoked.revoked_at).toBeDefined();
  });

  it('admin creates an active platform admin once, and lists admins', async () => {
    const email = `cli-admin-${Date.now()}@example.com`;
    const created = JSON.parse(
      (await cli('admin', ['create', '--email', email, '--first-name', 'Cli'])).stdout,
    );
    expect(created).toMatchObject({ email, kind: 'admin', status: 'active', first_name: 'Cli' });

    await expect(cli('admin', ['create', '--email', email])).rejects.toMatchObject({
      stderr: expect.stringContaining('already has an entry'),
    });
    const listed = JSON.parse((await cli('admin', ['list'])).stdout);
    expect(listed.map((entry: { email: string }) => entry.email)).toContain(email);
  });

  it('admin bootstrap makes the first admin of a table with TABLE_NAME set, and refuses a second', async () => {
    // A table of its own (on the harness's DynamoDB Local, reached as a deployed one: TABLE_NAME),
    // since the harness's table has its seeded admin.
    const table = `bootstrap-${randomUUID()}`;
    await ensureTable(process.env.DYNAMODB_ENDPOINT ?? '', table);
    const first = `First.Admin-${randomUUID().slice(0, 8)}@example.com`;

    const created = JSON.parse(
      (await cli('admin', ['bootstrap', '--email', first, '--first-name', 'Ada'], { TABLE_NAME: table }))
        .stdout,
    );

    expect(created).toMatchObject({
      email: first.toLowerCase(),
      kind: 'admin',
      status: 'active',
      first_name: 'Ada',
    });
    expect(
      await failsInOneLine(
        cli('admin', ['bootstrap', '--email', 'second@example.com'], { TABLE_NAME: table }),
      ),
    ).toBe('error: An active platform admin exists already: admins invite others from the console');
    const listed = JSON.parse((await cli('admin', ['list'], { TABLE_NAME: table })).stdout);
    expect(listed.map((entry: { email: string }) => entry.email)).toEqual([first.toLowerCase()]);
  });

  it('admin bootstrap refuses on the local stack, whose seed made an admin, and a bad address', async () => {
    expect(await failsInOneLine(cli('admin', ['bootstrap', '--email', 'late@example.com']))).toContain(
      'An active platform admin exists already',
    );
    // A usage mistake, not a refusal: exit 2.
    await expect(cli('admin', ['bootstrap', '--email', 'not-an-address'])).rejects.toMatchObject({
      code: 2,
      stderr:
        'error: bootstrap needs --email someone@example.com (npm run admin -- --help lists the options)\n' +
        'Usage: npm run admin -- <bootstrap|create|list|end-grants> [options]\n',
    });
  });

  it('oauth-client creates, lists and revokes clients; a revoked client cannot authorize', async () => {
    const created = JSON.parse(
      (
        await cli('oauth-client', [
          'create',
          '--name',
          'Pre-registered assistant',
          '--redirect-uri',
          'http://127.0.0.1:43117/callback',
        ])
      ).stdout,
    );
    expect(created).toMatchObject({
      client_name: 'Pre-registered assistant',
      token_endpoint_auth_method: 'none',
    });
    const authorizeUrl = `${harness.baseUrl}/oauth/authorize?response_type=code&client_id=${created.client_id}&code_challenge=${'a'.repeat(43)}&code_challenge_method=S256`;
    expect((await fetch(authorizeUrl, { redirect: 'manual' })).status).toBe(302);

    const listed = JSON.parse((await cli('oauth-client', ['list'])).stdout);
    expect(listed.clients.map((c: { client_id: string }) => c.client_id)).toContain(created.client_id);
    const revoked = JSON.parse((await cli('oauth-client', ['revoke', created.client_id, '--yes'])).stdout);
    expect(revoked).toMatchObject({ revoked_at: expect.any(String), grants_ended: 0 });
    expect((await fetch(authorizeUrl, { redirect: 'manual' })).status).toBe(400);
  });

  it('oauth-client refuses a javascript: redirect URI in one line', async () => {
    await expect(
      cli('oauth-client', ['create', '--name', 'x', '--redirect-uri', 'javascript:alert(1)']),
    ).rejects.toMatchObject({
      stderr: expect.stringMatching(/^error: The javascript: scheme is not allowed/),
    });
  });

  it('gallery adds an image to an industry gallery, which the media API then lists and streams', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bps-gallery-'));
    try {
      const file = join(dir, 'cake.png');
      writeFileSync(file, png(6, 4));
      const industry = `cli-${Date.now()}`;

      const added = JSON.parse((await cli('gallery', ['add', '--industry', industry, file])).stdout);
      const listed = await api('GET', `/api/v1/internal/media/gallery?industry_id=${industry}`, {
        headers: { 'x-internal-api-key': harness.credentials.internal_api_key },
      });

      expect(added).toMatchObject({ industry_id: industry, content_type: 'image/png', width: 6, height: 4 });
      expect(listed.body.items.map((item: { asset_id: string }) => item.asset_id)).toEqual([added.id]);
      await expect(
        cli('gallery', ['add', '--industry', industry, join(dir, 'missing.png')]),
      ).rejects.toMatchObject({
        stderr: expect.stringContaining('does not exist'),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('agent-key rejects bad arguments without touching the table', async () => {
    await expect(cli('agent-key', ['create', '--name', 'x', '--businesses', 'nope'])).rejects.toMatchObject({
      stderr: expect.stringContaining('UUIDs'),
    });
  });

  it('the CLIs that need the stack say so when it is not running', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'bps-empty-'));
    try {
      await expect(cli('invoke', ['getBlogAutoSchedule'], { LOCAL_STATE_DIR: empty })).rejects.toMatchObject({
        stderr: expect.stringContaining('npm start'),
      });
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('npm run synth', () => {
  it('writes the CloudFormation templates offline, bundling every function with the local esbuild, and sums up in a few lines', async () => {
    const out = mkdtempSync(join(tmpdir(), 'bps-cdk-out-'));
    try {
      const { stdout, stderr } = await run(
        process.execPath,
        ['--import', 'tsx', 'infra/synth.ts', '--output', out],
        {
          cwd: ROOT_DIR,
          timeout: 240_000,
        },
      );
      expect(stdout).toMatch(/^Synthesized \d+ stacks and \d+ assets into /);
      expect(stdout.trim().split('\n').length).toBeLessThanOrEqual(3);
      const templates = readdirSync(out).filter((file) => file.endsWith('.template.json'));
      expect(templates.length).toBeGreaterThanOrEqual(3);
      const assets = readdirSync(out).filter((file) => file.startsWith('asset.'));
      const bundles = assets.filter((dir) => readdirSync(join(out, dir)).includes('index.js'));
      // One per operation, one per Cognito trigger (functions/triggers/), one per custom
      // resource (functions/deploy/), the change-event publisher on the table's stream and the two
      // webhook delivery functions (the events queue's and the sweep's).
      const others = [
        ...['functions/triggers', 'functions/deploy'].flatMap((dir) =>
          readdirSync(join(ROOT_DIR, dir)).filter((file) => file.endsWith('.ts')),
        ),
        'functions/events/publish-events.ts',
        'functions/webhooks/deliver-webhooks.ts',
        'functions/webhooks/sweep-webhooks.ts',
      ];
      expect(bundles.length).toBe(routeTable.length + others.length);
      // While it runs, stderr names each function as it is bundled: one line per bundle.
      const bundling = stderr.split('\n').filter((line) => line.startsWith('synth: bundling '));
      expect(bundling).toHaveLength(bundles.length);
      expect(bundling).toContainEqual(
        expect.stringMatching(/^synth: bundling \d+: BusinessPlatform-dev-Routes-blog\/getBlogAutoSchedule$/),
      );
      // CommonJS (infra/bundling.ts): Lambda `require`s it, and node:http is required, not imported.
      const sample = readFileSync(join(out, bundles[0] ?? '', 'index.js'), 'utf8');
      expect(sample.startsWith('"use strict";')).toBe(true);
      expect(sample).not.toMatch(/^import /m);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 300_000);
});
