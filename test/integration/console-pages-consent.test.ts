import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { ARM_DELAY_MS } from '../../console-pages/src/attention-delay.ts';
import { api } from '../support/api.ts';
import {
  consoleUrl,
  freshEmail,
  harness,
  openConsent,
  signInAs,
  useConsoleBrowser,
} from '../support/console-browser.ts';
import { scriptDocument } from '../support/document-host.ts';
import { mcpStatus } from '../support/grant-probes.ts';
import { preRegisterClient } from '../support/oauth.ts';
import { arrangeTenant } from '../support/tenants.ts';

// The console pages' OAuth consent page in a real (headless) browser: who asks, who vouches for
// it, Approve armed by attention, Deny, and what an ineligible person sees.

const newPage = useConsoleBrowser();

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
    expect(await error.textContent()).toContain('This link is not valid or has expired.');
    // Not the API's own wording, and a way back.
    expect(await error.textContent()).not.toContain('request_id');
    expect(await error.getByRole('link', { name: 'Back to the console' }).getAttribute('href')).toMatch(
      /\/$/,
    );

    await page.goto(`${consoleUrl}/oauth/consent?request_id=${randomUUID()}`);
    await error.waitFor();
    expect(await error.textContent()).toContain(
      'This link is not valid or has expired (or another user opened it).',
    );

    await page.goto(`${consoleUrl}/oauth/consent`);
    await error.waitFor();
    expect(await error.textContent()).toContain('This link is not valid: it names no request.');
  });
});
