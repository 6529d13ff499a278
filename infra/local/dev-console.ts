import { readFileSync } from 'node:fs';
import { fieldTypes } from '#lib/records/fields.ts';
import * as z from '#lib/validation/zod.ts';
import type { DevIssuer } from './dev-issuer.ts';
import type { HttpResponse } from './lambda-runner.ts';
import type { SeedRecord } from './seed.ts';

/**
 * The dev console: the few console pages the service links to (invite accept, OAuth consent),
 * served by the harness so every link in a local e-mail or redirect can be clicked. Plain HTML
 * whose script (dev-console/console.js, inlined) calls the API same-origin with a token from the
 * local-only sign-in below. The real console is another project; this is a stand-in for local use.
 */
export const CONSOLE_PATH = '/console';

/** `CONSOLE_URL` of the local stack: the harness itself. */
export const localConsoleUrl = (baseUrl: string) => `${baseUrl}${CONSOLE_PATH}`;

export const isConsolePath = (path: string) => path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`);

export interface DevConsole {
  issuer: DevIssuer;
  seed: SeedRecord;
}

export interface ConsoleRequest {
  method: string;
  path: string;
  contentType: string | undefined;
  body: Buffer;
}

const TOKEN_PATH = `${CONSOLE_PATH}/dev/token`;
const MAX_TOKEN_BODY_BYTES = 1024;
const TOKEN_HOURS = 24;
const TokenRequest = z.strictObject({ email: fieldTypes.email() });

const assetsDir = new URL('./dev-console/', import.meta.url);
const script = readFileSync(new URL('console.js', assetsDir), 'utf8');
const style = readFileSync(new URL('console.css', assetsDir), 'utf8');

/** Answer a request for a path under /console (see isConsolePath). */
export async function handleConsoleRequest(request: ConsoleRequest, devConsole: DevConsole) {
  const { method, path } = request;
  if (path === TOKEN_PATH) {
    if (method !== 'POST') return { ...jsonResponse(405, { message: 'Use POST' }), headers: allowPost };
    return mintConsoleToken(request, devConsole.issuer);
  }
  if (method !== 'GET' && method !== 'HEAD') return jsonResponse(405, { message: 'Method Not Allowed' });
  if (path === CONSOLE_PATH)
    return { statusCode: 302, headers: { location: `${CONSOLE_PATH}/` }, body: empty };
  if (path === `${CONSOLE_PATH}/`) return html(200, homePage());
  if (path === `${CONSOLE_PATH}/sign-in`) return html(200, signInPage(devConsole.seed));
  if (path === `${CONSOLE_PATH}/oauth/consent`) return html(200, consentPage());
  if (/^\/console\/admin\/invites\/[^/]+$/.test(path)) return html(200, invitePage());
  return html(404, notFoundPage());
}

const empty = Buffer.alloc(0);
const allowPost = { 'content-type': 'application/json', allow: 'POST' };

/** POST /console/dev/token {email}: a console JWT from the dev issuer, as Cognito's hosted UI would give. */
async function mintConsoleToken(request: ConsoleRequest, issuer: DevIssuer): Promise<HttpResponse> {
  if (request.body.length > MAX_TOKEN_BODY_BYTES) {
    return jsonResponse(400, { message: `The body must be at most ${MAX_TOKEN_BODY_BYTES} bytes` });
  }
  if (!/^application\/json\b/i.test(request.contentType ?? '')) {
    return jsonResponse(400, { message: 'Send JSON: content-type application/json, body {"email": "…"}' });
  }
  let body: unknown;
  try {
    body = JSON.parse(request.body.toString('utf8'));
  } catch {
    return jsonResponse(400, { message: 'The body is not valid JSON' });
  }
  const parsed = TokenRequest.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    return jsonResponse(400, { message: `Send {"email": "…"} and nothing else (${where}${issue?.message})` });
  }
  const token = await issuer.mintToken({ email: parsed.data.email, hours: TOKEN_HOURS });
  return jsonResponse(200, { token });
}

function jsonResponse(statusCode: number, body: object): HttpResponse {
  return {
    statusCode,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    body: Buffer.from(JSON.stringify(body)),
  };
}

function html(statusCode: number, page: string): HttpResponse {
  return {
    statusCode,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      // A consent page must not be framed by another site (clickjacking).
      'content-security-policy': "frame-ancestors 'none'",
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
    },
    body: Buffer.from(page),
  };
}

export const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/** The frame of every page; `name` selects what console.js does on it. */
function layout(name: string, title: string, main: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)} · Business Platform dev console</title>
<style>${style}</style>
</head>
<body data-page="${name}">
<header class="bar">
  <a class="brand" href="${CONSOLE_PATH}/">Business Platform <span class="tag">dev console · local only</span></a>
  <span id="who" class="who"></span>
</header>
<main>
${main}
</main>
<script>${script}</script>
</body>
</html>`;
}

function homePage(): string {
  return layout(
    'home',
    'Home',
    `<h1>Dev console</h1>
<p>The local stand-in for the console: the pages the service links to, so that every link it
sends (invite e-mails, OAuth consent) can be clicked on this machine.</p>
<section class="card">
  <h2>Signed in</h2>
  <p id="signed-in" hidden>Signed in as <strong id="email"></strong> <span id="expires" class="muted"></span></p>
  <p id="signed-out">Nobody is signed in in this tab.</p>
  <p class="actions">
    <a class="button" href="${CONSOLE_PATH}/sign-in?next=%2Fconsole%2F">Sign in</a>
    <button type="button" id="sign-out" class="secondary" hidden>Sign out</button>
  </p>
</section>
<section class="card">
  <h2>Pages</h2>
  <ul>
    <li><code>${CONSOLE_PATH}/oauth/consent?request_id=…</code>: where <code>/oauth/authorize</code> sends the
      user to approve or deny an assistant.</li>
    <li><code>${CONSOLE_PATH}/admin/invites/…</code>: the accept link of a platform admin invite e-mail.</li>
    <li><a href="/docs">API docs</a> (<a href="/openapi.json">OpenAPI document</a>)</li>
  </ul>
</section>`,
  );
}

function signInPage(seed: SeedRecord): string {
  const users = [
    ...seed.businesses.flatMap((business) =>
      Object.entries(business.members).map(([role, email]) => ({ email, role, business: business.name })),
    ),
    { email: seed.platform_admin_email, role: 'platform admin', business: '' },
  ];
  const rows = users
    .map(
      (user) => `<li><button type="button" class="user" data-email="${escapeHtml(user.email)}">
  <span class="email">${escapeHtml(user.email)}</span>
  <span class="role">${escapeHtml(user.role)}${user.business ? ` · ${escapeHtml(user.business)}` : ''}</span>
</button></li>`,
    )
    .join('\n');
  return layout(
    'sign-in',
    'Dev sign-in',
    `<h1>Dev sign-in</h1>
<p class="note">Local only: this page mints a token from the harness's dev issuer for any e-mail
address, without a password. In AWS, the console signs in through Cognito.</p>
<p id="error" class="error" role="alert" hidden></p>
<section class="card">
  <h2>Demo users</h2>
  <ul class="users">
${rows}
  </ul>
</section>
<section class="card">
  <h2>Any e-mail address</h2>
  <form id="email-form" class="inline">
    <label for="email">E-mail</label>
    <input id="email" name="email" type="email" required autocomplete="email" placeholder="someone@example.com">
    <button type="submit">Sign in</button>
  </form>
</section>`,
  );
}

function consentPage(): string {
  return layout(
    'consent',
    'Approve an assistant',
    `<p id="loading" class="muted">Loading the request…</p>
<div id="error" class="error" role="alert" hidden></div>
<section id="request" class="card consent" hidden>
  <h1><span id="client-name"></span> wants to work on your business data</h1>
  <p class="destination">Approving will send you to <strong id="client-host" class="host"></strong></p>
  <p id="vouched-for" hidden></p>
  <p id="loopback" class="warning" hidden><strong>This assistant runs on this computer.</strong>
    Approve only if you started it yourself.</p>
  <p id="consented-before" class="muted" hidden>You approved this assistant before.</p>
  <h2>It asks to</h2>
  <ul id="scopes" class="scopes"></ul>
  <dl class="facts">
    <dt>For</dt><dd id="resource"></dd>
    <dt>Signed in as</dt><dd id="signed-in-as"></dd>
    <dt>Request expires</dt><dd id="expires-at"></dd>
  </dl>
  <p id="status" class="warning" hidden></p>
  <p id="ineligible" class="warning" hidden></p>
  <p id="decision-error" class="error" role="alert" hidden></p>
  <p class="actions">
    <button type="button" id="approve">Approve</button>
    <button type="button" id="deny" class="secondary">Deny</button>
  </p>
</section>`,
  );
}

function invitePage(): string {
  return layout(
    'invite',
    'Accept invite',
    `<h1>Platform admin invite</h1>
<section class="card">
  <p>Signed in as <strong id="signed-in-as"></strong>.
    <a id="switch-user" href="${CONSOLE_PATH}/sign-in">Sign in as someone else</a></p>
  <p>Accepting makes this account a platform admin of the Business Platform. Only the invited
    e-mail address can accept.</p>
  <p class="actions"><button type="button" id="accept">Accept invite</button></p>
  <div id="error" class="error" role="alert" hidden></div>
  <div id="success" class="success" role="status" hidden>
    <p><strong>Invite accepted.</strong> <span id="success-email"></span> is now a platform admin.</p>
    <dl id="success-data" class="facts"></dl>
  </div>
</section>`,
  );
}

function notFoundPage(): string {
  return layout(
    'not-found',
    'Not found',
    `<h1>Not found</h1>
<p>The dev console has no page here. <a href="${CONSOLE_PATH}/">Go to the dev console</a>.</p>`,
  );
}
