import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, inject, onTestFinished } from 'vitest';
import { TOKEN_KEY } from '../../console-pages/src/session.ts';
import { localConsoleUrl } from '../../infra/local/dev-console.ts';
import { DEV_SIGN_IN_PATHS } from '../../infra/local/dev-sign-in.ts';
import { launchChromium } from './browser.ts';
import { discover, insecure, registerClient } from './oauth.ts';

// The console pages (console-pages/), built and served by the harness under /console/ as
// CloudFront serves them, driven in a real (headless) browser by the console-pages tests.

export const harness = inject('harness');
export const consoleUrl = localConsoleUrl(harness.baseUrl);

/**
 * One Chromium for the calling test file (launched before its tests, closed after), and
 * `newPage`: a page in a context of its own, so every test starts signed out.
 */
export function useConsoleBrowser() {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return async function newPage(viewport?: { width: number; height: number }): Promise<Page> {
    const context = await browser.newContext(viewport ? { viewport } : {});
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    onTestFinished(() => context.close());
    return page;
  };
}

/** On the dev issuer's sign-in page (arrived at by redirect), sign in with a typed e-mail address. */
export async function signInAs(page: Page, email: string): Promise<void> {
  await page.waitForURL((url) => url.pathname === DEV_SIGN_IN_PATHS.authorize);
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

export const emailOf = (token: string) => String(decodeJwt(token).email);
export const freshEmail = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}@example.com`;
export const storedToken = (page: Page) => page.evaluate((key) => sessionStorage.getItem(key), TOKEN_KEY);

/** The assistant's side: a loopback redirect target that records what it is sent. */
export async function startRedirectTarget() {
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

export const registerTestAssistant = async (redirectUri: string) =>
  (await registerClient({ redirect_uris: [redirectUri], client_name: 'Test Assistant' })).client_id;

/**
 * An authorization request started by oauth4webapi, as an assistant starts one: the browser opens
 * its URL, follows /oauth/authorize to the consent page, and signs in on the way; it ends there.
 */
export async function openConsent(page: Page, email: string, makeClient = registerTestAssistant) {
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
