import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { ARM_DELAY_MS } from '../../console-pages/src/attention-delay.ts';
import { TOKEN_KEY } from '../../console-pages/src/session.ts';
import { localConsoleUrl } from '../../infra/local/dev-console.ts';
import { DEV_SIGN_IN_PATHS } from '../../infra/local/dev-sign-in.ts';
import { api } from '../support/api.ts';
import { launchChromium } from '../support/browser.ts';
import { scriptDocument } from '../support/document-host.ts';
import { mcpStatus } from '../support/grant-probes.ts';
import { discover, insecure, obtainTokens, preRegisterClient, registerClient } from '../support/oauth.ts';
import { arrangeTenant, platformAdminToken } from '../support/tenants.ts';

// The console pages (console-pages/), built and served by the harness under /console/ as
// CloudFront serves them, in a real (headless) browser: sign-in through the one adapter (the dev
// issuer speaks Cognito's authorization code + PKCE), consent, invites, connected assistants.

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
async function newPage(viewport?: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext(viewport ? { viewport } : {});
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  onTestFinished(() => context.close());
  return page;
}

/** On the dev issuer's sign-in page (arrived at by redirect), sign in with a typed e-mail address. */
async function signInAs(page: Page, email: string): Promise<void> {
  await page.waitForURL((url) => url.pathname === DEV_SIGN_IN_PATHS.authorize);
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

const emailOf = (token: string) => String(decodeJwt(token).email);
const freshEmail = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}@example.com`;
const storedToken = (page: Page) => page.evaluate((key) => sessionStorage.getItem(key), TOKEN_KEY);

describe('console pages: sign-in through the authorization code + PKCE adapter', () => {
  it('signs in from the home page as a listed demo user; the access token works on the API', async () => {
    const page = await newPage();
    const [business] = harness.credentials.businesses;
    if (!business) throw new Error('seed missing');
    const owner = emailOf(business.tokens.owner);

    await page.goto(`${consoleUrl}/`);
    expect(await page.locator('#signed-out').textContent()).toBe('Nobody is signed in in this tab.');
    await page.locator('main').getByRole('link', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === DEV_SIGN_IN_PATHS.authorize);
    const authorize = new URL(page.url());
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${consoleUrl}/auth/callback`);
    const users = page.getByRole('listitem').getByRole('button');
    expect(await users.count()).toBe(harness.credentials.businesses.length * 3 + 1);
    const listed = (await users.allTextContents()).join('\n');
    for (const seeded of harness.credentials.businesses) {
      for (const [role, token] of Object.entries(seeded.tokens)) {
        expect(listed).toContain(emailOf(token));
        expect(listed).toContain(`${role} · ${seeded.name}`);
      }
    }
    expect(listed).toContain(emailOf(platformAdminToken()));

    await page.getByRole('button', { name: owner }).click();
    await page.waitForURL(`${consoleUrl}/`);
    expect(await page.locator('#email').textContent()).toBe(owner);
    const token = await storedToken(page);
    expect(decodeJwt(token ?? '')).toMatchObject({ email: owner, token_use: 'access' });
    const read = await api('GET', `/api/v1/businesses/${business.id}/blog_posts/auto_schedule`, {
      token: token ?? '',
    });
    expect([200, 404]).toContain(read.status);

    // Sign out ends the session here and at the dev issuer, and lands on the home page.
    await page.locator('main').getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${consoleUrl}/`);
    await page.locator('#signed-out').waitFor();
    expect(await storedToken(page)).toBeNull();
  });

  it('goes home after sign-in when next is another site or outside the pages', async () => {
    const page = await newPage();
    for (const next of ['https://evil.example/', '//evil.example/console/', '/docs', '/console/../docs']) {
      await page.goto(`${consoleUrl}/sign-in?next=${encodeURIComponent(next)}`);
      await page.getByRole('button', { name: emailOf(platformAdminToken()) }).click();
      await page.waitForURL(`${consoleUrl}/`);
    }
  });

  it('refuses a callback that no sign-in of this tab started', async () => {
    const page = await newPage();
    await page.goto(`${consoleUrl}/auth/callback?code=forged&state=forged`);
    const error = page.getByRole('alert');
    await error.waitFor();
    expect(await error.textContent()).toContain(
      'This answer does not belong to a sign-in started in this tab.',
    );
    expect(await storedToken(page)).toBeNull();
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

describe('console pages: platform admin invite', () => {
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

const registerTestAssistant = async (redirectUri: string) =>
  (await registerClient({ redirect_uris: [redirectUri], client_name: 'Test Assistant' })).client_id;

/**
 * An authorization request started by oauth4webapi, as an assistant starts one: the browser opens
 * its URL, follows /oauth/authorize to the consent page, and signs in on the way; it ends there.
 */
async function openConsent(page: Page, email: string, makeClient = registerTestAssistant) {
  const target = await startRedirectTarget();
  const as = await discover();
  const client: oauth.Client = { client_id: await makeClient(target.redirectUri) };
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint ?? '');
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: target.redirectUri,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    scope: 'edits:read edits:write',
  }).toString();

  await page.goto(url.href);
  await signInAs(page, email);
  await page.waitForURL(
    (url) => url.pathname === '/console/oauth/consent' && url.searchParams.has('request_id'),
  );
  await page.locator('#request').waitFor();
  /** After Approve: the code the browser brought back, exchanged by the assistant. */
  const exchange = async () => {
    await page.waitForURL((url) => url.href.startsWith(`${target.redirectUri}?`));
    const params = oauth.validateAuthResponse(as, client, new URL(page.url()), state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      target.redirectUri,
      verifier,
      insecure,
    );
    return oauth.processAuthorizationCodeResponse(as, client, response);
  };
  return { ...target, state, exchange };
}

describe('console pages: OAuth consent', () => {
  it('shows who asks and that nobody verified it; Approve, reached with the keyboard, connects the assistant', async () => {
    const tenant = await arrangeTenant();
    const page = await newPage();

    const { host, received, exchange } = await openConsent(page, tenant.emails.owner);

    expect(await page.locator('#client-name').textContent()).toBe('Test Assistant');
    expect(await page.locator('#client-host').textContent()).toBe(host);
    expect(await page.getByText(`Approving will send you to ${host}`).isVisible()).toBe(true);
    expect(await page.getByText('This assistant runs on this computer.').isVisible()).toBe(true);
    // A client that registered itself: the page says nobody vouches for it.
    const vouchedFor = page.locator('#vouched-for');
    expect(await vouchedFor.getAttribute('class')).toBe('warning');
    expect(await vouchedFor.textContent()).toContain('Nobody has verified who made this assistant.');
    expect(await page.locator('#scopes').textContent()).toContain('Propose changes to that information');
    expect(await page.locator('#signed-in-as').textContent()).toBe(tenant.emails.owner);

    // Tab to Approve (in the tab order, after the header's links, once armed) and press Enter.
    await page.locator('#approve:enabled').waitFor();
    let presses = 0;
    while (!(await page.locator('#approve').evaluate((button) => button.matches(':focus')))) {
      presses += 1;
      if (presses > 20) throw new Error('Approve is not reachable with Tab');
      await page.keyboard.press('Tab');
    }
    await page.keyboard.press('Enter');
    const tokens = await exchange();

    expect(received).toHaveLength(1);
    expect(received[0]?.get('iss')).toBe(harness.baseUrl);
    expect(tokens.token_type).toBe('bearer');
    expect(await mcpStatus(tokens.access_token)).toBe(200);
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

  it('denying a client nobody vetted shows that the person said no, and goes back only by a plain link', async () => {
    const tenant = await arrangeTenant();
    const page = await newPage();

    const { host, redirectUri, received, state } = await openConsent(page, tenant.emails.owner);
    const consentUrl = page.url();
    await page.getByRole('button', { name: 'Deny' }).click();

    // Assess: the browser stays on the console, told what happened; nothing reached the assistant.
    await page.locator('#denied').waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('You denied Test Assistant');
    expect(page.url()).toBe(consentUrl);
    expect(received).toHaveLength(0);
    const link = page.locator('#client-link');
    expect(await link.textContent()).toBe(`go back to ${host}`);

    // Act: the person follows the link; the assistant learns of the denial.
    await link.click();
    await page.waitForURL((url) => url.href.startsWith(`${redirectUri}?`));
    expect(received).toHaveLength(1);
    expect(received[0]?.get('error')).toBe('access_denied');
    expect(received[0]?.get('code')).toBeNull();
    expect(received[0]?.get('state')).toBe(state);
  });

  it('denying a pre-registered client sends access_denied to the assistant', async () => {
    const tenant = await arrangeTenant();
    const page = await newPage();
    const preRegistered = async (redirectUri: string) =>
      (await preRegisterClient({ name: 'Vetted Assistant', redirectUri })).client_id;

    const { redirectUri, received, state } = await openConsent(page, tenant.emails.owner, preRegistered);
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${redirectUri}?`));

    expect(received).toHaveLength(1);
    expect(received[0]?.get('error')).toBe('access_denied');
    expect(received[0]?.get('code')).toBeNull();
    expect(received[0]?.get('state')).toBe(state);
  });

  it('arms Approve only once the page has been visible and focused for a moment; a click before does nothing', async () => {
    const tenant = await arrangeTenant();
    const page = await newPage();
    // The page's timers run on a clock the test moves: nothing arms until the test says so.
    await page.clock.install();
    await page.clock.pauseAt(Date.now() + 1_000);
    const { exchange } = await openConsent(page, tenant.emails.owner);
    const requestId = new URL(page.url()).searchParams.get('request_id');
    const approve = page.locator('#approve');

    // Right after render: disabled, and a real click on it does nothing.
    expect(await approve.isDisabled()).toBe(true);
    await approve.click({ force: true });
    expect(page.url()).toContain('/console/oauth/consent');
    const unanswered = await api('GET', `/api/v1/oauth/requests/${requestId}`, {
      token: tenant.tokens.owner,
    });
    expect(unanswered.body.status).toBe('pending');

    // A moment of attention arms it; losing focus starts the wait again.
    await page.clock.runFor(ARM_DELAY_MS - 1);
    expect(await approve.isDisabled()).toBe(true);
    await page.clock.runFor(1);
    expect(await approve.isEnabled()).toBe(true);
    await approve.evaluate((button) => button.ownerDocument.defaultView?.dispatchEvent(new Event('blur')));
    expect(await approve.isDisabled()).toBe(true);
    await page.clock.runFor(ARM_DELAY_MS);
    expect(await approve.isEnabled()).toBe(true);

    // Armed, a click approves.
    await approve.click();
    const tokens = await exchange();
    expect(await mcpStatus(tokens.access_token)).toBe(200);
  });

  it('shows a user without a business why they cannot approve, with Approve disabled, readable at 360 px', async () => {
    const page = await newPage({ width: 360, height: 740 });

    await openConsent(page, freshEmail('no-business'));

    const reason = page.locator('#ineligible');
    expect(await reason.isVisible()).toBe(true);
    expect((await reason.textContent())?.length).toBeGreaterThan('You cannot approve this request: '.length);
    expect(await page.getByRole('button', { name: 'Approve' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Deny' }).isEnabled()).toBe(true);
    // Nothing wider than the screen: no sideways scrolling at 360 px.
    expect(await page.locator('html').evaluate((root) => root.scrollWidth)).toBeLessThanOrEqual(360);
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

describe('console pages: connected assistants', () => {
  it('lists the assistant approved on the consent page; Disconnect ends it (401 at /mcp) and the list updates', async () => {
    const tenant = await arrangeTenant();
    const page = await newPage();
    const { exchange } = await openConsent(page, tenant.emails.owner);
    await page.getByRole('button', { name: 'Approve' }).click();
    const tokens = await exchange();
    expect(await mcpStatus(tokens.access_token)).toBe(200);

    // Same tab, so still signed in: the home page lists the connection.
    await page.goto(`${consoleUrl}/`);
    const grant = page.locator('.grant');
    await grant.waitFor();
    expect(await grant.count()).toBe(1);
    const shown = await grant.textContent();
    expect(shown).toContain('Test Assistant');
    expect(shown).toContain('nobody: it registered itself');
    expect(shown).toContain('Read the business information of the businesses you manage');
    expect(shown).toContain('Connected since');
    expect(shown).toContain('Last used');

    await page.getByRole('button', { name: 'Disconnect Test Assistant' }).click();
    await page.getByRole('status').waitFor();
    expect(await page.getByRole('status').textContent()).toBe(
      'Test Assistant is disconnected: it can no longer act as you.',
    );
    await page.getByText('No assistant is connected to your account.').waitFor();
    expect(await grant.count()).toBe(0);
    expect(await mcpStatus(tokens.access_token)).toBe(401);
  });
});

describe('console pages: many connected assistants', () => {
  it('shows the first 20 and follows next_cursor with Show more', async () => {
    const tenant = await arrangeTenant();
    const connected = [];
    for (let batch = 0; batch < 3; batch++) {
      connected.push(
        ...(await Promise.all(
          Array.from({ length: 7 }, () =>
            obtainTokens({ userToken: tenant.tokens.owner, scope: 'edits:read' }),
          ),
        )),
      );
    }
    const page = await newPage();

    await page.goto(`${consoleUrl}/sign-in`);
    await signInAs(page, tenant.emails.owner);
    await page.waitForURL(`${consoleUrl}/`);
    const grants = page.locator('.grant');
    const more = page.getByRole('button', { name: 'Show more' });
    await more.waitFor();
    expect(await grants.count()).toBe(20);

    await more.click();
    await more.waitFor({ state: 'hidden' });
    expect(await grants.count()).toBe(connected.length);
  });
});

describe('console pages: serving', () => {
  it('serves every file and page path with headers that forbid framing and inline code', async () => {
    for (const path of [
      '/',
      '/app.js',
      '/console.css',
      '/config.json',
      '/oauth/consent',
      '/admin/invites/x',
    ]) {
      const response = await fetch(`${consoleUrl}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      const policy = response.headers.get('content-security-policy') ?? '';
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).toContain("script-src 'self'");
      expect(policy).not.toContain('unsafe-inline');
      expect(policy).toContain(`connect-src 'self' ${harness.baseUrl}`);
    }
    const config = await (await fetch(`${consoleUrl}/config.json`)).json();
    expect(config).toEqual({
      apiUrl: harness.baseUrl,
      signIn: expect.objectContaining({ tokenUrl: `${harness.baseUrl}${DEV_SIGN_IN_PATHS.token}` }),
    });
  });

  it('answers an unknown page path with the shell, which says there is no page there', async () => {
    const page = await newPage();
    const response = await page.goto(`${consoleUrl}/no/such/page`);
    expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
  });
});
