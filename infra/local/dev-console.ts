import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fieldTypes } from '#lib/records/fields.ts';
import * as z from '#lib/validation/zod.ts';
import { buildConsolePages, PAGE_FILES } from '../../console-pages/build.ts';
import { CONFIG_FILE, ConsolePagesConfig } from '../../console-pages/config.ts';
import { consolePagesHeaders } from '../../console-pages/headers.ts';
import { type DevIssuer, LOCAL_AUDIENCE } from './dev-issuer.ts';
import { DEV_SIGN_IN_PATHS } from './dev-sign-in.ts';
import type { HttpResponse } from './lambda-runner.ts';

/**
 * The console pages (console-pages/) served by the harness under /console/, as CloudFront serves
 * them in AWS: built at start for that base path, with a config.json for the local stack (the API
 * is the harness, sign-in the dev issuer's Cognito-like endpoints, dev-sign-in.ts), the same
 * headers (console-pages/headers.ts), and index.html for every path that is not one of the files
 * (CloudFront's error responses do the same). Beside them, `POST /console/dev/token` mints a
 * console token for an e-mail address, for scripts and tests.
 */
export const CONSOLE_PATH = '/console';

/** `CONSOLE_URL` of the local stack: the harness itself. */
export const localConsoleUrl = (baseUrl: string) => `${baseUrl}${CONSOLE_PATH}`;

export const isConsolePath = (path: string) => path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`);

/** What the local sign-in asks for: the scopes a Cognito app client of the console would. */
const LOCAL_SIGN_IN_SCOPES = ['openid', 'email', 'profile'];

export interface DevConsole {
  issuer: DevIssuer;
  /** Each served file by name (config.json included), read once at start. */
  files: Map<string, { body: Buffer; contentType: string }>;
  headers: Record<string, string>;
}

export interface ConsoleRequest {
  method: string;
  path: string;
  contentType: string | undefined;
  body: Buffer;
}

const CONTENT_TYPES: Record<string, string> = {
  [PAGE_FILES.shell]: 'text/html; charset=utf-8',
  [PAGE_FILES.script]: 'text/javascript; charset=utf-8',
  [PAGE_FILES.style]: 'text/css; charset=utf-8',
  [CONFIG_FILE]: 'application/json',
};

/** The local stack's config.json: the API and the dev issuer's sign-in, both on the harness. */
export function localConsoleConfig(baseUrl: string): ConsolePagesConfig {
  return ConsolePagesConfig.parse({
    apiUrl: baseUrl,
    signIn: {
      authorizeUrl: `${baseUrl}${DEV_SIGN_IN_PATHS.authorize}`,
      tokenUrl: `${baseUrl}${DEV_SIGN_IN_PATHS.token}`,
      logoutUrl: `${baseUrl}${DEV_SIGN_IN_PATHS.logout}`,
      clientId: LOCAL_AUDIENCE,
      scopes: LOCAL_SIGN_IN_SCOPES,
    },
  });
}

/** Build the pages into `<stateDir>/console-pages/` with the local config.json, ready to serve. */
export async function prepareDevConsole(input: {
  stateDir: string;
  baseUrl: string;
  issuer: DevIssuer;
}): Promise<DevConsole> {
  const outDir = join(input.stateDir, 'console-pages');
  const built = await buildConsolePages(outDir, { basePath: `${CONSOLE_PATH}/` });
  const config = localConsoleConfig(input.baseUrl);
  writeFileSync(join(outDir, CONFIG_FILE), JSON.stringify(config, null, 2));
  const files = new Map<string, { body: Buffer; contentType: string }>();
  for (const name of [...built.map((file) => file.name), CONFIG_FILE]) {
    files.set(name, {
      body: readFileSync(join(outDir, name)),
      contentType: CONTENT_TYPES[name] ?? 'application/octet-stream',
    });
  }
  const headers = consolePagesHeaders({
    apiOrigins: [config.apiUrl],
    signInOrigin: config.signIn.tokenUrl,
  });
  return { issuer: input.issuer, files, headers };
}

const TOKEN_PATH = `${CONSOLE_PATH}/dev/token`;
const MAX_TOKEN_BODY_BYTES = 1024;
const TOKEN_HOURS = 24;
const TokenRequest = z.strictObject({ email: fieldTypes.email() });

/** Answer a request for a path under /console (see isConsolePath). */
export async function handleConsoleRequest(request: ConsoleRequest, devConsole: DevConsole) {
  const { method, path } = request;
  if (path === TOKEN_PATH) {
    if (method !== 'POST') return { ...jsonResponse(405, { message: 'Use POST' }), headers: allowPost };
    return mintConsoleToken(request, devConsole.issuer);
  }
  if (method !== 'GET' && method !== 'HEAD') {
    return { ...jsonResponse(405, { message: 'Method Not Allowed' }), headers: allowGet };
  }
  if (path === CONSOLE_PATH) {
    return { statusCode: 302, headers: { location: `${CONSOLE_PATH}/` }, body: empty };
  }
  const name = path.slice(`${CONSOLE_PATH}/`.length);
  const file = devConsole.files.get(name) ?? devConsole.files.get(PAGE_FILES.shell);
  if (!file) throw new Error('the console pages were not built');
  return {
    statusCode: 200,
    headers: { ...devConsole.headers, 'content-type': file.contentType, 'cache-control': 'no-cache' },
    body: file.body,
  };
}

const empty = Buffer.alloc(0);
const allowPost = { 'content-type': 'application/json', allow: 'POST' };
const allowGet = { 'content-type': 'application/json', allow: 'GET, HEAD' };

/** POST /console/dev/token {email}: a console token from the dev issuer, as sign-in would give. */
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
