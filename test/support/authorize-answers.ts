import { randomUUID } from 'node:crypto';
import { expect, inject } from 'vitest';
import { scriptDocument } from './document-host.ts';
import { REDIRECT_URI, type startAuthorization } from './oauth.ts';

/** What the /oauth/authorize tests check of its answers, and the documents they publish. */
export const host = () => inject('documentHost');

/** A Client ID Metadata Document served by the document host; its URL is the client_id. */
export async function publishDocument(fields: Record<string, unknown> = {}) {
  const path = `/clients/${randomUUID()}.json`;
  const clientId = `${host()}${path}`;
  await scriptDocument(host(), path, {
    status: 200,
    body: JSON.stringify({
      client_id: clientId,
      client_name: 'Doc Assistant',
      redirect_uris: [REDIRECT_URI],
      ...fields,
    }),
  });
  return { clientId, path };
}

/** The error page: 400, HTML, no redirect, and the headers every page of /oauth/authorize carries. */
export function expectErrorPage(started: Awaited<ReturnType<typeof startAuthorization>>, label = '') {
  expect(started.response.status, label).toBe(400);
  expect(started.location, label).toBeUndefined();
  expect(started.body, label).toContain('Cannot connect this assistant');
  const headers = started.response.headers;
  expect(headers.get('content-type'), label).toBe('text/html; charset=utf-8');
  const policy = headers.get('content-security-policy') ?? '';
  expect(policy, label).toContain("default-src 'none'");
  expect(policy, label).toMatch(/style-src 'sha256-[A-Za-z0-9+/]+={0,2}'/);
  expect(policy, label).toContain("frame-ancestors 'none'");
  expect(headers.get('referrer-policy'), label).toBe('no-referrer');
  expect(headers.get('x-content-type-options'), label).toBe('nosniff');
  expect(headers.get('cache-control'), label).toBe('no-store');
}

/** Every redirect of /oauth/authorize: never cached, never leaking its URL in a Referer. */
export function expectRedirectHeaders(started: Awaited<ReturnType<typeof startAuthorization>>) {
  expect(started.response.status).toBe(302);
  expect(started.response.headers.get('cache-control')).toBe('no-store');
  expect(started.response.headers.get('referrer-policy')).toBe('no-referrer');
}

/** Where an error redirect went, and what it said. */
export function errorRedirect(location: string | undefined) {
  expect(location).toBeDefined();
  const url = new URL(location as string);
  return { target: `${url.origin}${url.pathname}`, params: Object.fromEntries(url.searchParams) };
}
