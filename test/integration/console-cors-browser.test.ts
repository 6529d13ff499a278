import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from '../support/browser.ts';

/**
 * The console is a browser app on another origin; console endpoints answer CORS
 * preflights for the configured console origins as the HTTP API's CORS configuration does,
 * allowing authorization, content-type and if-match and exposing etag, x-request-id and
 * retry-after. Locally the console's origin is the harness's own (http://127.0.0.1:<port>, where
 * the dev console lives), so a page there calling the API as http://localhost:<port> is a
 * cross-origin call from an allowed origin, made by a real browser.
 * (console-cors.test.ts checks the headers themselves; this checks that a browser accepts them.)
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe('the console on another origin (headless Chromium)', () => {
  it('calls a console endpoint with a bearer token after a preflight, and reads the exposed headers', async () => {
    const harness = inject('harness');
    const business = harness.credentials.businesses[0];
    const apiOrigin = harness.baseUrl.replace('127.0.0.1', 'localhost');
    const page = await browser.newPage();
    try {
      // Any page of the console's origin will do; the console pages' own CSP would stop a call
      // to an origin their config.json does not name, so a plain page of that origin makes it.
      await page.goto(`${harness.baseUrl}/health`);
      const result = await page.evaluate(
        async ({ url, token }) => {
          try {
            const response = await fetch(url, {
              method: 'PUT',
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              body: JSON.stringify({ frequency_type: 'weekly' }),
            });
            return { status: response.status, requestId: response.headers.get('x-request-id') };
          } catch (error) {
            return { error: String(error) };
          }
        },
        {
          url: `${apiOrigin}/api/v1/businesses/${business?.id}/blog_posts/auto_schedule`,
          token: business?.tokens.owner,
        },
      );

      expect(result).toEqual({ status: 200, requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    } finally {
      await page.close();
    }
  });

  it('never lets a page of an origin that is not the console read a console endpoint', async () => {
    const harness = inject('harness');
    const business = harness.credentials.businesses[0];
    const page = await browser.newPage();
    try {
      // The document host plays another website (test/support/document-host.ts).
      await page.goto(`${inject('documentHost')}/__hits/console-cors`);
      const result = await page.evaluate(
        async ({ url, token }) =>
          fetch(url, { headers: { authorization: `Bearer ${token}` } }).then(
            (response) => `read ${response.status}`,
            () => 'blocked',
          ),
        {
          url: `${harness.baseUrl}/api/v1/businesses/${business?.id}/blog_posts/auto_schedule`,
          token: business?.tokens.owner,
        },
      );

      expect(result).toBe('blocked');
    } finally {
      await page.close();
    }
  });
});
