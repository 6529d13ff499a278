import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { decodeJwt } from 'jose';
import { describe, expect, inject, it } from 'vitest';
import { MISDIRECTED_MESSAGE } from '../../infra/local/loopback-host.ts';
import { ROOT_DIR } from '../../infra/local/paths.ts';
import { api } from '../support/api.ts';

describe('local harness', () => {
  const harness = inject('harness');

  /** A request to the harness with this Host header (fetch would send the URL's own). */
  const withHost = (
    method: string,
    path: string,
    host: string,
    options: { headers?: Record<string, string>; json?: unknown } = {},
  ) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const body = options.json === undefined ? undefined : JSON.stringify(options.json);
      httpRequest(
        `${harness.baseUrl}${path}`,
        {
          method,
          headers: {
            ...options.headers,
            host,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
        },
        (response) => {
          let text = '';
          response.on('data', (chunk) => {
            text += chunk;
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        },
      )
        .on('error', reject)
        .end(body);
    });

  it('writes credentials.json in exactly the documented shape, with tokens valid for at least 24 h', () => {
    const credentials = JSON.parse(readFileSync(join(harness.stateDir, 'credentials.json'), 'utf8'));

    expect(Object.keys(credentials).sort()).toEqual(
      [
        'agent_key',
        'base_url',
        'businesses',
        'internal_api_key',
        'platform_admin_token',
        'ses_web_url',
      ].sort(),
    );
    expect(credentials.base_url).toBe(harness.baseUrl);
    expect(credentials.businesses).toHaveLength(2);
    for (const business of credentials.businesses) {
      expect(Object.keys(business).sort()).toEqual(['id', 'name', 'tokens']);
      expect(Object.keys(business.tokens).sort()).toEqual(['editor', 'owner', 'viewer']);
      for (const token of Object.values(business.tokens) as string[]) {
        expect(decodeJwt(token).exp ?? 0).toBeGreaterThanOrEqual(Date.now() / 1000 + 24 * 3600);
      }
    }
    expect(credentials.agent_key).toMatch(/^agk_/);
    expect(credentials.ses_web_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('seeds two businesses in different tenants whose tokens work only on their own business', async () => {
    const [first, second] = harness.credentials.businesses;
    if (!first || !second) throw new Error('seed missing');
    const path = (id: string) => `/api/v1/businesses/${id}/blog_posts/auto_schedule`;

    expect([200, 404]).toContain((await api('GET', path(first.id), { token: first.tokens.viewer })).status);
    expect((await api('GET', path(second.id), { token: first.tokens.owner })).status).toBe(403);
    expect([200, 404]).toContain(
      (await api('GET', path(second.id), { token: harness.credentials.platform_admin_token })).status,
    );
  });

  it('serves the OpenAPI document through its route, naming the origin it was read from', async () => {
    const openApi = await api('GET', '/openapi.json');
    expect(openApi.status).toBe(200);
    expect(openApi.body.openapi).toBe('3.1.0');
    expect(openApi.body.servers).toEqual([{ url: harness.baseUrl }]);
    // A function answered (the harness adds its DynamoDB counts to functions' answers only), and
    // the document describes its own route.
    expect(openApi.headers.get('x-local-dynamodb-calls')).toBe('0');
    expect(openApi.body.paths['/openapi.json'].get.operationId).toBe('getOpenApiDocument');
    // Reached under another name (as the two APIs are in AWS), it names that one.
    const servers = await withHost('GET', '/openapi.json', 'localhost:8443');
    expect(JSON.parse(servers.text).servers).toEqual([{ url: 'http://localhost:8443' }]);
  });

  it('refuses a Host that is not a loopback name with 421, minting and changing nothing (DNS rebinding)', async () => {
    const admin = { authorization: `Bearer ${harness.credentials.platform_admin_token}` };
    const invitee = `rebound.${Date.now()}@example.com`;
    const adminEmail = String(decodeJwt(harness.credentials.platform_admin_token).email);
    for (const host of [
      'evil.example',
      'evil.example:3000',
      `evil.example:${new URL(harness.baseUrl).port}`,
    ]) {
      const token = await withHost('POST', '/console/dev/token', host, { json: { email: adminEmail } });
      expect(token.status, host).toBe(421);
      expect(token.text, host).toBe(JSON.stringify({ message: MISDIRECTED_MESSAGE }));

      const invite = await withHost('POST', '/api/v1/admin/users', host, {
        headers: admin,
        json: { email: invitee },
      });
      expect(invite.status, host).toBe(421);
      expect((await withHost('GET', '/health', host)).status, host).toBe(421);
    }
    const users = await api('GET', '/api/v1/admin/users', {
      token: harness.credentials.platform_admin_token,
    });
    expect(users.status).toBe(200);
    expect(JSON.stringify(users.body)).not.toContain(invitee);
  });

  it('serves the loopback names, with the port or without', async () => {
    const port = new URL(harness.baseUrl).port;
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `[::1]:${port}`,
      'localhost',
      'LOCALHOST:80',
    ]) {
      const token = await withHost('POST', '/console/dev/token', host, {
        json: { email: 'someone@example.com' },
      });
      expect(token.status, host).toBe(200);
      expect(decodeJwt(JSON.parse(token.text).token).email, host).toBe('someone@example.com');
    }
  });

  it('serves the docs page, its document with the demo ids, and the dev issuer JWKS the functions start with', async () => {
    const docs = await fetch(`${harness.baseUrl}/docs`);
    expect(docs.headers.get('content-type')).toContain('text/html');
    const page = await docs.text();
    expect(page).toContain("url: '/docs/openapi.json'");
    const openApi = await api('GET', '/docs/openapi.json');
    expect(openApi.body.servers).toEqual([{ url: harness.baseUrl }]);
    expect(page).toContain('persistAuthorization: true');
    expect(page).toContain('deepLinking: true');
    // "Try it out" comes filled in with the first demo business and its records.
    const business = harness.credentials.businesses[0];
    const schedule = openApi.body.paths['/api/v1/businesses/{business_id}/blog_posts/auto_schedule'].get;
    expect(schedule.parameters.find((p: { name: string }) => p.name === 'business_id').example).toBe(
      business?.id,
    );
    const faq = openApi.body.paths['/api/v1/agent/businesses/{business_id}/faqs/{faq_id}'].get;
    const faqId = faq.parameters.find((p: { name: string }) => p.name === 'faq_id').example;
    const agentRead = await api('GET', `/api/v1/agent/businesses/${business?.id}/faqs/${faqId}`, {
      token: harness.credentials.agent_key,
    });
    expect(agentRead.status).toBe(200);
    expect((await fetch(`${harness.baseUrl}/docs/swagger-ui-bundle.js`)).status).toBe(200);

    const jwks = await api('GET', '/local-issuer/.well-known/jwks.json');
    expect(jwks.body.keys).toHaveLength(1);
    expect(jwks.body.keys[0].d).toBeUndefined();
    // The functions start with the same set, as a deployment gives them the user pool's.
    const { env } = JSON.parse(readFileSync(join(harness.stateDir, 'runtime.json'), 'utf8'));
    expect(JSON.parse(env.JWT_KEY_SET)).toEqual(jwks.body);
  });

  it('answers unknown routes like API Gateway does', async () => {
    const response = await api('GET', '/api/v1/nothing-here');

    expect(response.status).toBe(404);
    expect(response.body).toEqual({ message: 'Not Found' });
  });

  it("enforces API Gateway's 10 MB request limit before invoking anything", async () => {
    const business = harness.credentials.businesses[0];
    const response = await api('PUT', `/api/v1/businesses/${business?.id}/blog_posts/auto_schedule`, {
      token: business?.tokens.owner,
      raw: Buffer.alloc(10 * 1024 * 1024 + 1, 0x20),
      headers: { 'content-type': 'application/json' },
    });

    expect(response.status).toBe(413);
    expect(response.body).toEqual({ message: 'Request Entity Too Large' });
  });

  it('closes the connection after refusing a body with 413, so a keep-alive client goes on with a fresh one', async () => {
    const business = harness.credentials.businesses[0];
    const path = `/api/v1/businesses/${business?.id}/blog_posts/auto_schedule`;
    // One socket at most: the second request must reuse it unless the server said it was closing.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, body?: Buffer) =>
      new Promise<{ status: number; connection: string | undefined; text: string }>((resolve, reject) => {
        const request = httpRequest(
          `${harness.baseUrl}${path}`,
          {
            method,
            agent,
            headers: {
              authorization: `Bearer ${business?.tokens.owner}`,
              'content-type': 'application/json',
            },
          },
          (response) => {
            let text = '';
            response.on('data', (chunk) => {
              text += chunk;
            });
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, text }),
            );
          },
        );
        request.on('error', reject);
        request.end(body);
      });
    try {
      const refused = await send('PUT', Buffer.alloc(10 * 1024 * 1024 + 1, 0x20));
      expect(refused).toMatchObject({ status: 413, connection: 'close' });
      expect([200, 404]).toContain((await send('GET')).status);
    } finally {
      agent.destroy();
    }

    // The same with fetch (undici keeps connections alive by default).
    const tooLarge = await fetch(`${harness.baseUrl}${path}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: Buffer.alloc(10 * 1024 * 1024 + 1, 0x20),
    });
    expect(tooLarge.status).toBe(413);
    await tooLarge.text();
    expect((await fetch(`${harness.baseUrl}/health`)).status).toBe(200);
    // The base URL itself says where everything is, rather than a 404.
    const index = await fetch(`${harness.baseUrl}/`);
    expect(index.status).toBe(200);
    expect(await index.json()).toMatchObject({
      docs: `${harness.baseUrl}/docs`,
      openapi: `${harness.baseUrl}/openapi.json`,
      console: expect.stringContaining(harness.baseUrl),
    });
  });

  it('gives every request its own request id', async () => {
    const business = harness.credentials.businesses[0];
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const response = await api('GET', `/api/v1/businesses/${business?.id}/blog_posts/auto_schedule`);
      ids.add(response.headers.get('x-request-id') ?? '');
    }

    expect(ids.size).toBe(5);
  });
});

describe('a harness that is still starting', () => {
  const freePort = async () => {
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    server.close();
    return typeof address === 'object' && address ? address.port : 0;
  };

  it('answers 503 with retry-after at once, never leaving a request hanging, then serves when ready', async () => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'infra/local/start.ts', '--ephemeral', '--port', String(port), '--ready-json'],
      {
        cwd: ROOT_DIR,
        stdio: ['pipe', 'pipe', 'inherit'],
        env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'ERROR' },
      },
    );
    const exited = once(child, 'exit');
    const ready = new Promise<void>((resolve) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (line.startsWith('HARNESS_READY ')) resolve();
      });
    });
    let early: Response | undefined;
    let isReady = false;
    void ready.then(() => {
      isReady = true;
    });
    try {
      // The port is open as soon as the harness starts, long before DynamoDB Local is up.
      while (!early && !isReady) {
        early = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(5_000) }).catch(
          () => undefined,
        );
        if (!early) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(early, 'the harness became ready before a request got in').toBeDefined();
      expect(early?.status).toBe(503);
      expect(early?.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await early?.json()).toMatchObject({
        success: false,
        request_id: expect.any(String),
        error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String) },
      });

      await ready;
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    } finally {
      child.stdin?.end();
      await exited;
    }
  }, 120_000);
});
