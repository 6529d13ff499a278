import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVIEW_VIEW_URI } from '#lib/mcp/review-view.ts';
import type { ViewLaunch } from '../../infra/local/mcp-app-host/view-launch.ts';
import { api } from '../support/api.ts';
import { launchChromium } from '../support/browser.ts';
import { serveMcpAppHost } from '../support/mcp-app-host/serve-host.ts';
import { connectAssistant } from '../support/mcp-session.ts';
import { baseUrl } from '../support/oauth.ts';
import { arrangeTenant, type Tenant } from '../support/tenants.ts';

// The changeset review view in headless Chromium, inside a web host built as MCP Apps requires
// (test/support/mcp-app-host/ over infra/local/mcp-app-host/: a host page with the ext-apps
// AppBridge, and a sandbox page on a second loopback origin), for a real propose_changes result from the local stack. The host's
// MCP client is the SDK's, connected as an assistant; every call the view makes reaches /mcp
// through it. What was applied and reverted is read back through the edits API.

// What the callbacks run in the browser see (this file is type-checked without the DOM library).
declare const window: { startView(launch: ViewLaunch): Promise<void>; innerWidth: number };
declare const document: { activeElement: { id: string } | null; documentElement: { scrollWidth: number } };
declare function getComputedStyle(element: unknown): { colorScheme: string };

let browser: Browser;
let host: Awaited<ReturnType<typeof serveMcpAppHost>>;
let tenant: Tenant;
let client: Client;
let html: string;
let csp: ViewLaunch['csp'];

beforeAll(async () => {
  [browser, host, tenant] = await Promise.all([launchChromium(), serveMcpAppHost(), arrangeTenant()]);
  ({ client } = await connectAssistant({ baseUrl: baseUrl(), userToken: tenant.tokens.owner }));
  const { contents } = await client.readResource({ uri: REVIEW_VIEW_URI });
  const view = contents[0] as { text: string; _meta?: { ui?: { csp?: ViewLaunch['csp'] } } };
  html = view.text;
  csp = view._meta?.ui?.csp;
});

afterAll(async () => {
  await browser?.close();
  await host?.stop();
});

const NEW_TAGLINE = 'Fresh bread every morning';

/** The profile's tagline as the edits API reads it, in a session of the owner's own. */
async function taglineNow(): Promise<unknown> {
  const session = await api('POST', '/api/v1/edits/sessions', {
    token: tenant.tokens.owner,
    json: { business_id: tenant.businessId },
  });
  const record = await api('GET', `/api/v1/edits/sessions/${session.body.data.id}/records/profile/profile`, {
    token: tenant.tokens.owner,
  });
  return record.body.data.data.tagline;
}

async function faqQuestions(): Promise<string[]> {
  const session = await api('POST', '/api/v1/edits/sessions', {
    token: tenant.tokens.owner,
    json: { business_id: tenant.businessId },
  });
  const snapshot = await api('GET', `/api/v1/edits/sessions/${session.body.data.id}/snapshot`, {
    token: tenant.tokens.owner,
  });
  return snapshot.body.data.records.faq.map((faq: { label: string }) => faq.label);
}

/**
 * Proposes two changes (the profile's tagline, a new FAQ) as the assistant, and opens the view of
 * that result in the host; resolves with the page, the view's frame, the changeset's id and the
 * tools the view called through the host.
 */
async function openView(question: string, theme: 'light' | 'dark' = 'light') {
  const { structuredContent: session } = (await client.callTool({
    name: 'open_edit_session',
    arguments: { business_id: tenant.businessId },
  })) as CallToolResult & { structuredContent: { id: string } };
  const proposeArguments = {
    session_id: session.id,
    summary: 'New tagline and an FAQ',
    items: [
      { entity: 'profile', action: 'update', fields: { tagline: NEW_TAGLINE } },
      { entity: 'faq', action: 'create', fields: { question, answer: 'From 8 to 12.' } },
    ],
  };
  const proposed = (await client.callTool({
    name: 'propose_changes',
    arguments: proposeArguments,
  })) as CallToolResult;
  const changesetId = (proposed.structuredContent as { id: string }).id;

  const page = await browser.newPage({ viewport: { width: 360, height: 800 } });
  const calls: string[] = [];
  await page.exposeFunction('callServerTool', async (params: CallToolRequest['params']) => {
    calls.push(params.name);
    return client.callTool(params);
  });
  await page.goto(host.hostUrl);
  const launch: ViewLaunch = {
    hostName: 'bps-test-host',
    html,
    csp,
    sandboxUrl: host.sandboxUrl,
    toolArguments: proposeArguments,
    toolResult: proposed,
    theme,
  };
  await page.evaluate((view) => window.startView(view), launch);
  const view = viewFrame(page);
  await view.getByRole('button', { name: 'Apply', exact: true }).waitFor();
  return { page, view, changesetId, calls };
}

/** The view's document: the frame inside the sandbox frame. */
function viewFrame(page: Page): Frame {
  const sandbox = page.frames().find((frame) => frame.url().startsWith(host.sandboxOrigin)) as Frame;
  return sandbox.childFrames()[0] as Frame;
}

const focusedId = (view: Frame) => view.evaluate(() => document.activeElement?.id ?? '');

describe('the changeset review view in a web host (headless Chromium)', () => {
  it('shows each change with its checkbox; unticking one and Apply applies only the other; Revert restores it', async () => {
    const initialTagline = await taglineNow();
    const { page, view, calls } = await openView('Open on Sundays?');
    try {
      const tagline = view.getByRole('checkbox', { name: 'Update Profile: tagline' });
      const faq = view.getByRole('checkbox', { name: 'Create FAQ “Open on Sundays?”: question, answer' });
      expect(await view.getByRole('checkbox').count()).toBe(2);
      expect(await tagline.isChecked()).toBe(true);
      const text = await view.locator('body').innerText();
      expect(text).toContain(typeof initialTagline === 'string' ? initialTagline : '(empty)');
      expect(text).toContain(NEW_TAGLINE);
      // At 360 px nothing is cut off sideways.
      expect(await view.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

      await faq.uncheck();
      await expect.poll(() => calls).toContain('set_change_ticked');
      await view.getByRole('button', { name: 'Apply', exact: true }).click();
      await view.getByText('Skipped: left out').waitFor();
      expect(await view.locator('.outcome[data-status="applied"]').innerText()).toBe('Applied');

      expect(await taglineNow()).toBe(NEW_TAGLINE);
      expect(await faqQuestions()).not.toContain('Open on Sundays?');

      await view.getByRole('button', { name: 'Revert', exact: true }).click();
      await view.getByText('Reverted', { exact: true }).first().waitFor();
      expect(await taglineNow()).toBe(initialTagline);
      expect(calls).toEqual(['set_change_ticked', 'apply_changes', 'revert_changes']);
      // Every call went through the host: the view itself may reach nothing, not even the service.
      const ownFetch = await view.evaluate(
        (url) =>
          fetch(url, { method: 'POST' }).then(
            () => 'reached',
            () => 'blocked',
          ),
        `${baseUrl()}/mcp`,
      );
      expect(ownFetch).toBe('blocked');
    } finally {
      await page.close();
    }
  });

  it('works with the keyboard alone: untick, tick, untick with Space, then Apply with Enter', async () => {
    const { page, view, changesetId } = await openView('Gluten-free?', 'dark');
    try {
      const faqId = (await view.getByRole('checkbox').nth(1).getAttribute('id')) as string;
      for (let presses = 0; presses < 10 && (await focusedId(view)) !== faqId; presses++) {
        await page.keyboard.press('Tab');
      }
      expect(await focusedId(view)).toBe(faqId);
      const faq = view.locator(`#${faqId}`);
      for (const expected of [false, true, false]) {
        await page.keyboard.press('Space');
        await expect.poll(() => faq.isChecked()).toBe(expected);
        await expect.poll(() => view.locator('main').getAttribute('aria-busy')).toBe('false');
        // Focus stays on the checkbox across the redraw.
        expect(await focusedId(view)).toBe(faqId);
      }
      const staged = await api('GET', `/api/v1/edits/changesets/${changesetId}`, {
        token: tenant.tokens.owner,
      });
      expect(staged.body.data.items.map((item: { ticked: boolean }) => item.ticked)).toEqual([true, false]);

      await page.keyboard.press('Tab');
      expect(await focusedId(view)).toBe('review-action');
      await page.keyboard.press('Enter');
      await view.getByRole('button', { name: 'Revert', exact: true }).waitFor();
      expect(await focusedId(view)).toBe('review-action');
      expect(await taglineNow()).toBe(NEW_TAGLINE);
      expect(await faqQuestions()).not.toContain('Gluten-free?');
      // The host's dark theme reached the view.
      expect(await view.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toBe('dark');
    } finally {
      await page.close();
    }
  });
});
