import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { localConsoleUrl } from '../../infra/local/dev-console.ts';
import { api } from '../support/api.ts';
import { launchChromium } from '../support/browser.ts';
import { scriptDocument } from '../support/document-host.ts';
import { arrangeTenant, platformAdminToken } from '../support/tenants.ts';

// The dev console in a real (headless) browser: the pages the service links to, clicked through
// as a newcomer would, against the real API behind the harness.

const harness = inject('harness');
const consoleUrl = localConsoleUrl(harness.baseUrl);
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

/** A page in a context of its own, so every test starts signed out. */
async function newPage(): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(15_000);
  onTestFinished(() => page.close());
  return page;
}

/** On the sign-in page (arrived at by redirect), sign in with a typed e-mail address. */
async function signInAs(page: Page, email: string): Promise<void> {
  await page.waitForURL((url) => url.pathname === '/console/sign-in');
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

const emailOf = (token: string) => String(decodeJwt(token).email);
const freshEmail = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}@example.com`;

describe('dev console: sign-in', () => {
  it('lists the seeded users; signing in as one lands on next, and the token works on the API', async () => {
    const page = await newPage();
    const [business] = harness.credentials.businesses;
    if (!business) throw new Error('seed missing');
    const owner = emailOf(business.tokens.owner);

    const response = await page.goto(
      `${consoleUrl}/sign-in?next=${encodeURIComponent('/console/?from=test')}`,
    );

    expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
    const users = page.getByRole('listitem').getByRole('button');
    await expect.poll(() => users.count()).toBe(harness.credentials.businesses.length * 3 + 1);
    const listed = (await users.allTextContents()).join('\n');
    for (const seeded of harness.credentials.businesses) {
      for (const [role, token] of Object.entries(seeded.tokens)) {
        expect(listed).toContain(emailOf(token));
        expect(listed).toContain(`${role} · ${seeded.name}`);
      }
    }
    expect(listed).toContain(emailOf(platformAdminToken()));

    await page.getByRole('button', { name: owner }).click();
    await page.waitForURL((url) => url.href === `${consoleUrl}/?from=test`);
    expect(await page.locator('#email').textContent()).toBe(owner);
    const token = await page.evaluate(() => sessionStorage.getItem('bps-dev-console-token'));
    const read = await api('GET', `/api/v1/businesses/${business.id}/blog_posts/auto_schedule`, {
      token: token ?? '',
    });
    expect([200, 404]).toContain(read.status);
  });

  it('goes to /console/ after sign-in when next is another site or outside the console', async () => {
    const page = await newPage();
    for (const next of ['https://evil.example/', '//evil.example/console/', '/docs', '/console/../docs']) {
      await page.goto(`${consoleUrl}/sign-in?next=${encodeURIComponent(next)}`);
      await page.getByRole('button', { name: emailOf(platformAdminToken()) }).click();
      await page.waitForURL(`${consoleUrl}/`);
    }
  });

  it('answers 400 with the reason to a bad token request, and a 404 page for unknown paths', async () => {
    const token = (request: Parameters<typeof api>[2]) => api('POST', '/console/dev/token', request);

    expect((await token({ json: { email: 'Someone@Example.com' } })).status).toBe(200);
    const bad = [
      await token({ json: { email: 'not-an-email' } }),
      await token({ json: { email: 'a@b.example', role: 'admin' } }),
      await token({ raw: '{"email":', headers: { 'content-type': 'application/json' } }),
      await token({ raw: JSON.stringify({ email: 'a@b.example' }) }),
      await token({ json: { email: `${'a'.repeat(2000)}@b.example` } }),
    ];
    expect(bad.map((response) => response.status)).toEqual([400, 400, 400, 400, 400]);
    expect(bad.map((response) => response.body.message)).toEqual([
      expect.stringMatching(/email/i),
      expect.stringMatching(/role/),
      expect.stringMatching(/not valid JSON/),
      expect.stringMatching(/content-type application\/json/),
      expect.stringMatching(/at most 1024 bytes/),
    ]);

    const missing = await fetch(`${consoleUrl}/no/such/page`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await missing.text()).toContain('Not found');
  });
});

interface SentMail {
  destination: { to: string[] };
  body: { text?: string };
}

async function mailTo(email: string): Promise<SentMail> {
  const store = (await (await fetch(`${harness.credentials.ses_web_url}/store`)).json()) as {
    emails: SentMail[];
  };
  const mail = store.emails.find((sent) => sent.destination.to.includes(email));
  if (!mail) throw new Error(`no mail to ${email}`);
  return mail;
}

describe('dev console: platform admin invite', () => {
  it('accepts an invite from the e-mail link once signed in as the invitee', async () => {
    const email = freshEmail('invitee');
    const invited = await api('POST', '/api/v1/admin/users', {
      token: platformAdminToken(),
      json: { email },
    });
    expect(invited.status).toBe(201);
    const link = /Accept the invite: (\S+)/.exec((await mailTo(email)).body.text ?? '')?.[1];
    expect(link).toBe(`${consoleUrl}/admin/invites/${invited.body.data.id}`);
    const page = await newPage();

    // Signed in as someone else first: the service refuses, and the page says so.
    await page.goto(link ?? '');
    await signInAs(page, freshEmail('stranger'));
    await page.waitForURL(link ?? '');
    await page.getByRole('button', { name: 'Accept invite' }).click();
    const error = page.getByRole('alert');
    await error.waitFor();
    expect(await error.textContent()).toContain('Could not accept the invite.');

    await page.getByRole('link', { name: 'Sign in as the invitee' }).click();
    await signInAs(page, email);
    await page.waitForURL(link ?? '');
    expect(await page.locator('#signed-in-as').textContent()).toBe(email);
    await page.getByRole('button', { name: 'Accept invite' }).click();
    const success = page.getByRole('status');
    await success.waitFor();

    expect(await success.textContent()).toContain('Invite accepted.');
    expect(await success.textContent()).toContain(email);
    const entries = await api('GET', '/api/v1/admin/users', { token: platformAdminToken() });
    expect(entries.body.data.filter((entry: { email: string }) => entry.email === email)).toEqual([
      expect.objectContaining({ kind: 'admin', status: 'active' }),
    ]);
  });
});

/** The assistant's side: a loopback redirect target that records what it is sent. */
async function startRedirectTarget() {
  const received: URLSearchParams[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    // Only the redirect counts; the browser also asks for /favicon.ico.
    if (url.pathname === '/callback') received.push(url.searchParams);
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>Test Assistant</title><p>You can close this tab.</p>');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  onTestFinished(() => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  return { host: `127.0.0.1:${port}`, redirectUri: `http://127.0.0.1:${port}/callback`, received };
}

/** Register a client that sends codes to a redirect URI; its client_id. */
async function registerTestAssistant(redirectUri: string): Promise<string> {
  const registered = await api('POST', '/oauth/register', {
    json: { redirect_uris: [redirectUri], client_name: 'Test Assistant' },
  });
  expect(registered.status).toBe(201);
  return registered.body.client_id;
}

/**
 * Make a client (by default, register one) and open its authorize URL; the browser ends on the
 * consent page, signed in.
 */
async function openConsent(page: Page, email: string, makeClient = registerTestAssistant) {
  const target = await startRedirectTarget();
  const clientId = await makeClient(target.redirectUri);
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const query = Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: target.redirectUri,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state,
    scope: 'edits:read edits:write',
  })
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join('&');

  await page.goto(`${harness.baseUrl}/oauth/authorize?${query}`);
  await signInAs(page, email);
  await page.waitForURL(
    (url) => url.pathname === '/console/oauth/consent' && url.searchParams.has('request_id'),
  );
  await page.locator('#request').waitFor();
  return { ...target, state };
}

describe('dev console: OAuth consent', () => {
  it('shows who asks and where approving leads, and approving sends the code to the assistant', async () => {
    const tenant = await arrangeTenant();
    const page = await newPage();

    const { host, redirectUri, received, state } = await openConsent(page, tenant.emails.owner);

    expect(await page.locator('#client-name').textContent()).toBe('Test Assistant');
    expect(await page.locator('#client-host').textContent()).toBe(host);
    expect(await page.getByText(`Approving will send you to ${host}`).isVisible()).toBe(true);
    expect(await page.getByText('This assistant runs on this computer.').isVisible()).toBe(true);
    // A client that registered itself: the page says nobody vouches for it.
    const vouchedFor = page.locator('#vouched-for');
    expect(await vouchedFor.isVisible()).toBe(true);
    expect(await vouchedFor.getAttribute('class')).toBe('warning');
    expect(await vouchedFor.textContent()).toContain('Nobody has verified who made this assistant.');
    expect(await page.locator('#signed-in-as').textContent()).toBe(tenant.emails.owner);
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${redirectUri}?`));

    expect(received).toHaveLength(1);
    expect(received[0]?.get('code')).toEqual(expect.any(String));
    expect(received[0]?.get('state')).toBe(state);
    expect(received[0]?.get('iss')).toBe(harness.baseUrl);
  });

  it('says which site vouches for a client described by a metadata document', async () => {
    const tenant = await arrangeTenant();
    const page = await newPage();
    const documentHost = inject('documentHost');
    const publish = async (redirectUri: string) => {
      const path = `/clients/${randomUUID()}.json`;
      const clientId = `${documentHost}${path}`;
      await scriptDocument(documentHost, path, {
        status: 200,
        body: JSON.stringify({
          client_id: clientId,
          client_name: 'Doc Assistant',
          redirect_uris: [redirectUri],
        }),
      });
      return clientId;
    };

    await openConsent(page, tenant.emails.owner, publish);

    const vouchedFor = page.locator('#vouched-for');
    expect(await vouchedFor.getAttribute('class')).toBe('warning');
    expect(await vouchedFor.textContent()).toBe(
      `Vouched for only by ${new URL(documentHost).host}, the site that describes this assistant. Approve only if you trust that site.`,
    );
  });

  it('denying sends access_denied to the assistant', async () => {
    const tenant = await arrangeTenant();
    const page = await newPage();

    const { redirectUri, received, state } = await openConsent(page, tenant.emails.owner);
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${redirectUri}?`));

    expect(received).toHaveLength(1);
    expect(received[0]?.get('error')).toBe('access_denied');
    expect(received[0]?.get('code')).toBeNull();
    expect(received[0]?.get('state')).toBe(state);
    expect(received[0]?.get('iss')).toBe(harness.baseUrl);
  });

  it('shows a user without a business why they cannot approve, with Approve disabled', async () => {
    const page = await newPage();

    await openConsent(page, freshEmail('no-business'));

    const reason = page.locator('#ineligible');
    expect(await reason.isVisible()).toBe(true);
    expect((await reason.textContent())?.length).toBeGreaterThan('You cannot approve this request: '.length);
    expect(await page.getByRole('button', { name: 'Approve' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Deny' }).isEnabled()).toBe(true);
  });

  it("shows the API's errors as text: a bad request id, an unknown request, a missing id", async () => {
    const tenant = await arrangeTenant();
    const page = await newPage();
    await page.goto(`${consoleUrl}/oauth/consent?request_id=not-a-uuid`);
    await signInAs(page, tenant.emails.owner);

    const error = page.getByRole('alert');
    await error.waitFor();
    expect(await error.textContent()).toContain('This consent link is not valid (bad request id).');

    await page.goto(`${consoleUrl}/oauth/consent?request_id=${randomUUID()}`);
    await error.waitFor();
    expect(await error.textContent()).toContain('No such request, or another user opened it.');

    await page.goto(`${consoleUrl}/oauth/consent`);
    await error.waitFor();
    expect(await error.textContent()).toContain('This consent link has no request_id.');
  });
});
