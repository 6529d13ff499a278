import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { DEV_SIGN_IN_PATHS } from '../../infra/local/dev-sign-in.ts';
import { api } from '../support/api.ts';
import {
  consoleUrl,
  emailOf,
  freshEmail,
  harness,
  openConsent,
  signInAs,
  storedToken,
  useConsoleBrowser,
} from '../support/console-browser.ts';
import { mcpStatus } from '../support/grant-probes.ts';
import { obtainTokens } from '../support/oauth.ts';
import { arrangeTenant, platformAdminToken } from '../support/tenants.ts';

// The console pages in a real (headless) browser: sign-in through the one adapter (the dev issuer
// speaks Cognito's authorization code + PKCE), invites, connected assistants, serving. The consent
// page has a file of its own (console-pages-consent.test.ts).

const newPage = useConsoleBrowser();

describe('console pages: sign-in through the authorization code + PKCE adapter', () => {
  it('signs in from the home page as a listed demo user; the access token works on the API', async () => {
    const page = await newPage();
    const [business] = harness.credentials.businesses;
    if (!business) throw new Error('seed missing');
    const owner = emailOf(business.tokens.owner);

    await page.goto(`${consoleUrl}/`);
    expect(await page.locator('#signed-out').textContent()).toBe('Nobody is signed in in this tab.');
    expect(await page.getByRole('heading', { level: 2 }).first().textContent()).toBe('Not signed in');
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
    // In words, not the API's field names.
    expect(await success.locator('dt').allTextContents()).toContain('Accepted');
    expect(await success.textContent()).not.toMatch(/accepted_at|invited_at|first_name/);
    const entries = await api('GET', '/api/v1/admin/users', { token: platformAdminToken() });
    expect(entries.body.data.filter((entry: { email: string }) => entry.email === email)).toEqual([
      expect.objectContaining({ kind: 'admin', status: 'active' }),
    ]);
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

    // It asks first; Cancel keeps the assistant connected.
    await page.getByRole('button', { name: 'Disconnect Test Assistant' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await grant.count()).toBe(1);
    await page.getByRole('button', { name: 'Disconnect Test Assistant' }).click();
    await page.getByRole('button', { name: 'Yes, disconnect Test Assistant' }).click();
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
