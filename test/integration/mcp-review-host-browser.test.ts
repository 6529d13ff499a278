import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { REVIEW_HOST_PATH } from '../../infra/local/dev-review-host.ts';
import { api } from '../support/api.ts';
import { launchChromium } from '../support/browser.ts';
import { connectReviewHost, reviewViewFrame, stageDemoChangeset } from '../support/review-host-page.ts';
import { arrangeTenant } from '../support/tenants.ts';

// The local review host (/console/dev/review) in headless Chromium against the test harness: a
// person connects it as an assistant through sign-in and the consent page, stages the demo
// changeset, and applies part of it through the review view; the edits API shows what changed.
// The view itself is tested thoroughly in mcp-review-view-browser.test.ts.

const harness = inject('harness');
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

describe('the local review host page', () => {
  // Run alone, the test starts eight functions cold behind a fresh harness (OAuth metadata,
  // authorize, consent request, approve, token, /mcp, the changeset and the change log), each
  // loading its TypeScript through tsx: 2-3.5 s apiece on a busy 2-core machine, past 30 s in all.
  it('connects through consent, shows the demo changeset in the view, and applies only what stays ticked', async () => {
    const tenant = await arrangeTenant();
    const context = await browser.newContext({ viewport: { width: 800, height: 900 } });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);

      await connectReviewHost(page, harness.baseUrl, tenant.emails.owner);
      let view = await stageDemoChangeset(page, tenant.businessId);
      expect(await view.getByRole('checkbox').count()).toBe(2);
      const changesetId = new URL(page.url()).searchParams.get('changeset_id');
      expect(changesetId).toMatch(/^[0-9a-f-]{36}$/);

      // A reload shows the same changeset, read with get_changeset on the same connection.
      await page.reload();
      view = await reviewViewFrame(page);
      const faq = view.getByRole('checkbox', { name: 'Create FAQ “Open on Sundays?”: question, answer' });
      await faq.uncheck();
      // The view is busy until set_change_ticked answers, then draws the changeset it answered.
      // Wait for that, not for the edits API: its first read here can start the function behind
      // it cold (seconds when this file runs alone), far past expect.poll's one second.
      await view.locator('main[aria-busy="false"]').waitFor();
      expect(await faq.isChecked()).toBe(false);
      const staged = await api('GET', `/api/v1/edits/changesets/${changesetId}`, {
        token: tenant.tokens.owner,
      });
      expect(staged.body.data.items.map((item: { ticked: boolean }) => item.ticked)).toEqual([true, false]);
      await view.getByRole('button', { name: 'Apply', exact: true }).click();
      await view.getByText('Skipped: left out').waitFor();

      const applied = await api('GET', `/api/v1/edits/changesets/${changesetId}`, {
        token: tenant.tokens.owner,
      });
      expect(applied.body.data.status).toBe('applied');
      expect(applied.body.data.items.map((item: { status: string }) => item.status)).toEqual([
        'applied',
        'skipped',
      ]);
      // The changes were made by the review host, as the owner's assistant.
      const log = await api('GET', `/api/v1/edits/businesses/${tenant.businessId}/change-log`, {
        token: tenant.tokens.owner,
      });
      expect(log.body.data[0].actor).toMatchObject({ type: 'assistant' });
    } finally {
      await context.close();
    }
  }, 60_000);

  it('serves its sandbox page only for its own origin', async () => {
    const sandbox = `${harness.baseUrl.replace('127.0.0.1', 'localhost')}${REVIEW_HOST_PATH}/sandbox`;
    const own = await fetch(`${sandbox}?host=${encodeURIComponent(harness.baseUrl)}`);
    expect(own.status).toBe(200);
    expect(own.headers.get('content-security-policy')).toContain(`frame-ancestors ${harness.baseUrl}`);
    const other = await fetch(`${sandbox}?host=${encodeURIComponent('https://evil.example')}`);
    expect(other.status).toBe(400);
  });
});
