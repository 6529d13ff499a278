import { fileURLToPath } from 'node:url';
import { CONSOLE_PATH } from './dev-console.ts';
import type { HttpResponse } from './lambda-runner.ts';
import { bundlePageScript } from './mcp-app-host/bundle-page-script.ts';
import type { ReviewHostConfig } from './mcp-app-host/review-host-config.ts';
import { sandboxPage, sandboxPageHeaders } from './mcp-app-host/sandbox-page.ts';

/**
 * The local review host (local only; the deployed console pages know nothing of it): a page at
 * `/console/dev/review` that hosts the changeset review view (MCP Apps) against the running stack
 * (mcp-app-host/browser/review-page.ts), and its sandbox page at `/console/dev/review/sandbox` on
 * the other loopback name (`localhost` for a page on `127.0.0.1`): a web host must run the view
 * on an origin other than its own. The page connects to /mcp as a real assistant would, through
 * authorization code + PKCE and the consent page, as an OAuth client the harness pre-registers
 * (as an operator does with `npm run oauth-client -- create`), found again by name on every start.
 */
export const REVIEW_HOST_PATH = `${CONSOLE_PATH}/dev/review`;
const SCRIPT_PATH = `${REVIEW_HOST_PATH}/app.js`;
const SANDBOX_PATH = `${REVIEW_HOST_PATH}/sandbox`;
const CLIENT_NAME = 'Local review host';
/** It stays connected while a developer works (offline_access: a refresh token renews its access). */
const SCOPE = 'edits:read edits:write offline_access';
const HOST_NAME = 'bps-local-review-host';

export const isReviewHostPath = (path: string) =>
  path === REVIEW_HOST_PATH || path === SCRIPT_PATH || path === SANDBOX_PATH;

export interface DevReviewHost {
  page: Buffer;
  script: Buffer;
  headers: Record<string, string>;
  /** The only origin the sandbox page serves (and may be framed by): the page's. */
  hostOrigin: string;
}

/** The pre-registered client of the review host: the one an earlier start made, else a new one. */
async function reviewHostClientId(redirectUri: string): Promise<string> {
  // Imported here: the table's module reads its settings, which the harness sets at start.
  const { createClient, listClients } = await import('#lib/oauth/clients.ts');
  const existing = (await listClients()).find(
    (client) =>
      client.source === 'cli' &&
      client.client_name === CLIENT_NAME &&
      !client.revoked_at &&
      client.redirect_uris.includes(redirectUri) &&
      client.scope === SCOPE,
  );
  if (existing) return existing.client_id;
  // A loopback redirect URI matches on any port, so the client outlives a change of --port.
  const client = await createClient(
    { client_name: CLIENT_NAME, redirect_uris: [redirectUri], scope: SCOPE },
    'cli',
  );
  return client.client_id;
}

const escapeJsonForHtml = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/** Register its client and bundle its script: the review host, ready to serve. */
export async function prepareReviewHost(baseUrl: string): Promise<DevReviewHost> {
  const hostOrigin = new URL(baseUrl).origin;
  const sandboxOrigin = hostOrigin.replace('//127.0.0.1:', '//localhost:');
  const redirectUri = `${hostOrigin}${REVIEW_HOST_PATH}`;
  const [clientId, script] = await Promise.all([
    reviewHostClientId(`http://127.0.0.1${REVIEW_HOST_PATH}`),
    bundlePageScript(fileURLToPath(new URL('./mcp-app-host/browser/review-page.ts', import.meta.url))),
  ]);
  const config: ReviewHostConfig = {
    issuer: baseUrl,
    clientId,
    redirectUri,
    scope: SCOPE,
    pagePath: REVIEW_HOST_PATH,
    sandboxUrl: `${sandboxOrigin}${SANDBOX_PATH}?host=${encodeURIComponent(hostOrigin)}`,
    hostName: HOST_NAME,
  };
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${CONSOLE_PATH}/console.css">
<title>Review view host · Business Platform</title>
</head>
<body>
<header class="bar"><span class="brand">Business Platform <span class="tag">review view host · local only</span></span> <a href="${CONSOLE_PATH}/">Console</a></header>
<main id="main" aria-live="polite"><p>Loading…</p></main>
<script type="application/json" id="review-host-config">${escapeJsonForHtml(config)}</script>
<script src="${SCRIPT_PATH}"></script>
</body>
</html>
`;
  return {
    page: Buffer.from(page),
    script: Buffer.from(script),
    hostOrigin,
    headers: {
      'content-security-policy': [
        "default-src 'none'",
        // The MCP SDK's client checks each tool result against the tool's output schema with ajv,
        // which compiles schemas into functions: eval for this page's own script, nothing else.
        "script-src 'self' 'unsafe-eval'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        `frame-src ${sandboxOrigin}`,
        "form-action 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
      ].join('; '),
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-cache',
    },
  };
}

/** Answer a request for one of the review host's paths (see isReviewHostPath). */
export function handleReviewHostRequest(
  request: { method: string; path: string; query: URLSearchParams },
  host: DevReviewHost,
): HttpResponse {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return {
      statusCode: 405,
      headers: { allow: 'GET, HEAD', 'content-type': 'text/plain' },
      body: Buffer.from('Use GET'),
    };
  }
  if (request.path === SANDBOX_PATH) {
    // It relays messages only to and from the origin named here, so it serves the page's alone.
    if (request.query.get('host') !== host.hostOrigin) {
      return {
        statusCode: 400,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
        body: Buffer.from(`host must be ${host.hostOrigin}`),
      };
    }
    return {
      statusCode: 200,
      headers: sandboxPageHeaders(host.hostOrigin),
      body: Buffer.from(sandboxPage(host.hostOrigin)),
    };
  }
  if (request.path === SCRIPT_PATH) {
    return {
      statusCode: 200,
      headers: { ...host.headers, 'content-type': 'text/javascript; charset=utf-8' },
      body: host.script,
    };
  }
  return {
    statusCode: 200,
    headers: { ...host.headers, 'content-type': 'text/html; charset=utf-8' },
    body: host.page,
  };
}
