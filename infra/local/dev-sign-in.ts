import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { fieldTypes } from '#lib/records/fields.ts';
import * as z from '#lib/validation/zod.ts';
import { type DevIssuer, ISSUER_PATH, LOCAL_AUDIENCE } from './dev-issuer.ts';
import type { HttpResponse } from './lambda-runner.ts';
import type { SeedRecord } from './seed.ts';

/**
 * The dev issuer's sign-in, spoken as Cognito managed login speaks it, so the console pages' one
 * sign-in adapter (OAuth 2.0 authorization code + PKCE S256, public client) runs the same here
 * and in AWS:
 * - `GET <issuer>/oauth2/authorize`: a page listing the demo users and taking any e-mail address,
 *   without a password (local only); signing in sends the browser to the registered redirect URI
 *   with a code;
 * - `POST <issuer>/oauth2/token`: the code (single-use, 60 seconds) and its PKCE verifier for the
 *   dev issuer's access token, answered to a browser on any origin as Cognito's token endpoint is;
 * - `GET <issuer>/logout?client_id&logout_uri`: back to the registered sign-out URL.
 * There is one registered client: the console pages (client id LOCAL_AUDIENCE), whose redirect
 * URI is `<console>/auth/callback` and sign-out URL `<console>/`.
 */
export const DEV_SIGN_IN_PATHS = {
  authorize: `${ISSUER_PATH}/oauth2/authorize`,
  token: `${ISSUER_PATH}/oauth2/token`,
  logout: `${ISSUER_PATH}/logout`,
} as const;

export const isDevSignInPath = (path: string) =>
  (Object.values(DEV_SIGN_IN_PATHS) as string[]).includes(path);

export interface DevSignIn {
  handle(request: DevSignInRequest): Promise<HttpResponse>;
}

export interface DevSignInRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  contentType: string | undefined;
  body: Buffer;
}

const CODE_SECONDS = 60;
const TOKEN_HOURS = 1;
const MAX_FORM_BYTES = 4096;

const AuthorizeParams = z.object({
  response_type: z.literal('code'),
  client_id: z.string(),
  redirect_uri: z.string(),
  state: z.optional(z.string().check(z.maxLength(512))),
  scope: z.optional(z.string().check(z.maxLength(512))),
  code_challenge: z.string().check(z.regex(/^[A-Za-z0-9_-]{43,128}$/)),
  code_challenge_method: z.literal('S256'),
});
type AuthorizeParams = z.infer<typeof AuthorizeParams>;

const TokenForm = z.object({
  grant_type: z.string(),
  code: z.string().check(z.maxLength(256)),
  redirect_uri: z.string(),
  client_id: z.string(),
  code_verifier: z.string().check(z.regex(/^[A-Za-z0-9._~-]{43,128}$/)),
});

interface IssuedCode {
  email: string;
  redirectUri: string;
  challenge: string;
  expiresAt: number;
}

export function createDevSignIn(input: {
  issuer: DevIssuer;
  seed: SeedRecord;
  consoleUrl: string;
}): DevSignIn {
  const client = {
    id: LOCAL_AUDIENCE,
    redirectUri: `${input.consoleUrl}/auth/callback`,
    signOutUrl: `${input.consoleUrl}/`,
  };
  const codes = new Map<string, IssuedCode>();

  /** The authorize request's parameters, or the page saying why they cannot be used. */
  function authorizeRequest(params: Record<string, string>): AuthorizeParams | HttpResponse {
    // The client and where it returns are checked first: an unknown one gets a page, never a redirect.
    if (params.client_id !== client.id) return errorPage(`client_id must be ${client.id}.`);
    if (params.redirect_uri !== client.redirectUri) {
      return errorPage(`redirect_uri must be the registered ${client.redirectUri}.`);
    }
    const parsed = AuthorizeParams.safeParse(params);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return errorPage(
        `${issue?.path.join('.')}: ${issue?.message} (response_type=code and PKCE with S256 are required).`,
      );
    }
    return parsed.data;
  }

  async function authorize(request: DevSignInRequest): Promise<HttpResponse> {
    if (request.method === 'GET' || request.method === 'HEAD') {
      const params = authorizeRequest(Object.fromEntries(request.query));
      return 'statusCode' in params ? params : signInPage(input.seed, params, input.consoleUrl);
    }
    if (request.method !== 'POST') return errorPage('Use GET or POST.', 405);
    const form = readForm(request);
    if (typeof form === 'string') return errorPage(form);
    const { email, ...rest } = form;
    const params = authorizeRequest(rest);
    if ('statusCode' in params) return params;
    const address = fieldTypes.email().safeParse(email);
    if (!address.success) {
      return signInPage(input.seed, params, input.consoleUrl, `“${email ?? ''}” is not an e-mail address.`);
    }
    const code = randomBytes(24).toString('base64url');
    codes.set(code, {
      email: address.data,
      redirectUri: params.redirect_uri,
      challenge: params.code_challenge,
      expiresAt: Date.now() + CODE_SECONDS * 1000,
    });
    const target = new URL(params.redirect_uri);
    target.searchParams.set('code', code);
    if (params.state !== undefined) target.searchParams.set('state', params.state);
    return { statusCode: 302, headers: { location: target.href, 'cache-control': 'no-store' }, body: empty };
  }

  async function token(request: DevSignInRequest): Promise<HttpResponse> {
    if (request.method === 'OPTIONS') {
      return {
        statusCode: 204,
        headers: {
          'access-control-allow-origin': '*',
          'access-control-allow-methods': 'POST',
          'access-control-allow-headers': 'content-type, authorization',
        },
        body: empty,
      };
    }
    if (request.method !== 'POST') return tokenError(405, 'invalid_request', 'Use POST');
    const form = readForm(request);
    if (typeof form === 'string') return tokenError(400, 'invalid_request', form);
    if (form.grant_type !== 'authorization_code') {
      return tokenError(400, 'unsupported_grant_type', 'Only authorization_code is supported');
    }
    const parsed = TokenForm.safeParse(form);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return tokenError(400, 'invalid_request', `${issue?.path.join('.')}: ${issue?.message}`);
    }
    const { code, redirect_uri, client_id, code_verifier } = parsed.data;
    if (client_id !== client.id) return tokenError(400, 'invalid_client', 'Unknown client');
    // Single-use: whatever the outcome, the code is spent by this request.
    const issued = codes.get(code);
    codes.delete(code);
    if (!issued || issued.expiresAt <= Date.now())
      return tokenError(400, 'invalid_grant', 'Unknown or expired code');
    if (issued.redirectUri !== redirect_uri) return tokenError(400, 'invalid_grant', 'redirect_uri differs');
    const challenge = createHash('sha256').update(code_verifier).digest();
    const expected = Buffer.from(issued.challenge, 'base64url');
    if (challenge.length !== expected.length || !timingSafeEqual(challenge, expected)) {
      return tokenError(400, 'invalid_grant', 'code_verifier does not match the code_challenge');
    }
    const accessToken = await input.issuer.mintToken({ email: issued.email, hours: TOKEN_HOURS });
    return tokenAnswer(200, {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: TOKEN_HOURS * 3600,
    });
  }

  function logout(request: DevSignInRequest): HttpResponse {
    if (request.method !== 'GET' && request.method !== 'HEAD') return errorPage('Use GET.', 405);
    if (request.query.get('client_id') !== client.id) return errorPage(`client_id must be ${client.id}.`);
    if (request.query.get('logout_uri') !== client.signOutUrl) {
      return errorPage(`logout_uri must be the registered sign-out URL ${client.signOutUrl}.`);
    }
    return {
      statusCode: 302,
      headers: { location: client.signOutUrl, 'cache-control': 'no-store' },
      body: empty,
    };
  }

  return {
    async handle(request) {
      if (request.path === DEV_SIGN_IN_PATHS.authorize) return authorize(request);
      if (request.path === DEV_SIGN_IN_PATHS.token) return token(request);
      return logout(request);
    },
  };
}

const empty = Buffer.alloc(0);

/** A form body's fields (each named once), or why it is not one. */
function readForm(request: DevSignInRequest): Record<string, string> | string {
  if (!/^application\/x-www-form-urlencoded\b/i.test(request.contentType ?? '')) {
    return 'Send a form: content-type application/x-www-form-urlencoded';
  }
  if (request.body.length > MAX_FORM_BYTES) return `The body must be at most ${MAX_FORM_BYTES} bytes`;
  const fields: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(request.body.toString('utf8'))) {
    if (name in fields) return `${name} is given more than once`;
    fields[name] = value;
  }
  return fields;
}

function tokenError(statusCode: number, error: string, description: string): HttpResponse {
  return tokenAnswer(statusCode, { error, error_description: description });
}

function tokenAnswer(statusCode: number, body: object): HttpResponse {
  return {
    statusCode,
    headers: {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      pragma: 'no-cache',
      'access-control-allow-origin': '*',
    },
    body: Buffer.from(JSON.stringify(body)),
  };
}

const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/** The sign-in pages' headers: nothing but the console's stylesheet loads, forms post only here. */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

function layout(title: string, main: string, consoleUrl = ''): string {
  const style = consoleUrl
    ? `<link rel="stylesheet" href="${escapeHtml(new URL(consoleUrl).pathname)}/console.css">`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)} · Business Platform dev sign-in</title>
${style}
</head>
<body>
<header class="bar"><span class="brand">Business Platform <span class="tag">dev sign-in · local only</span></span></header>
<main>
${main}
</main>
</body>
</html>`;
}

function errorPage(message: string, statusCode = 400): HttpResponse {
  const page = layout(
    'Cannot sign in',
    `<h1>Cannot sign in</h1>\n<p class="error" role="alert">${escapeHtml(message)}</p>`,
  );
  return { statusCode, headers: PAGE_HEADERS, body: Buffer.from(page) };
}

/** The sign-in page: the authorize request's parameters ride along in hidden fields. */
function signInPage(
  seed: SeedRecord,
  params: AuthorizeParams,
  consoleUrl: string,
  problem?: string,
): HttpResponse {
  const hidden = Object.entries(params)
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0] !== 'email')
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');
  const users = [
    ...seed.businesses.flatMap((business) =>
      Object.entries(business.members).map(([role, email]) => ({
        email,
        role: `${role} · ${business.name}`,
      })),
    ),
    { email: seed.platform_admin_email, role: 'platform admin' },
  ];
  const rows = users
    .map(
      (user) => `<li><button type="submit" class="user" name="email" value="${escapeHtml(user.email)}">
  <span class="email">${escapeHtml(user.email)}</span>
  <span class="role">${escapeHtml(user.role)}</span>
</button></li>`,
    )
    .join('\n');
  const page = layout(
    'Sign in',
    `<h1>Dev sign-in</h1>
<p class="note">Local only: the harness's dev issuer signs in any e-mail address, without a
password. In AWS, Cognito's sign-in page takes its place.</p>
${problem ? `<p class="error" role="alert">${escapeHtml(problem)}</p>` : ''}
<section class="card">
  <h2>Demo users</h2>
  <form method="post">
${hidden}
  <ul class="users">
${rows}
  </ul>
  </form>
</section>
<section class="card">
  <h2>Any e-mail address</h2>
  <form method="post" class="inline">
${hidden}
    <label for="email">E-mail</label>
    <input id="email" name="email" type="email" required autocomplete="email" placeholder="someone@example.com">
    <button type="submit">Sign in</button>
  </form>
</section>`,
    consoleUrl,
  );
  return { statusCode: problem ? 400 : 200, headers: PAGE_HEADERS, body: Buffer.from(page) };
}
