import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import * as oauth from 'oauth4webapi';
import { inject } from 'vitest';
import { ROOT_DIR } from '../../infra/local/paths.ts';
import { type ApiResponse, api } from './api.ts';
import { run } from './cli-runs.ts';

/**
 * The OAuth flow as an assistant runs it, with oauth4webapi (a certified, spec-strict client)
 * doing the protocol; the console user's part (approving on the consent page) goes through the
 * consent operations, as the console does.
 */
export const baseUrl = () => inject('harness').baseUrl;
/** Our issuer is plain http on loopback locally; oauth4webapi refuses http unless told. */
export const insecure = { [oauth.allowInsecureRequests]: true } as const;
export const REDIRECT_URI = 'http://127.0.0.1:43117/callback';

export async function discover(): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(baseUrl());
  const response = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure });
  return oauth.processDiscoveryResponse(issuer, response);
}

/**
 * Register a client, from a loopback address of its own (127.x.y.z): registrations are rate
 * limited per source address, and the whole suite registers far more clients than one real
 * source would.
 */
export async function registerClient(
  metadata: { redirect_uris?: string[]; client_name?: string; scope?: string } = {},
  sourceAddress = randomLoopbackAddress(),
): Promise<oauth.Client> {
  const response = await postJsonFrom(sourceAddress, '/oauth/register', {
    client_name: 'Test Assistant',
    redirect_uris: [REDIRECT_URI],
    ...metadata,
  });
  if (response.status !== 201) throw new Error(`registration failed: ${JSON.stringify(response.body)}`);
  return { client_id: response.body.client_id, token_endpoint_auth_method: 'none' };
}

/**
 * Pre-register a client as an operator does, with `npm run oauth-client -- create` against the
 * test harness: the one kind of client whose redirect URIs someone vetted.
 */
export async function preRegisterClient(
  options: { name?: string; redirectUri?: string; scope?: string } = {},
): Promise<oauth.Client> {
  const args = ['create', '--name', options.name ?? 'Vetted Assistant'];
  args.push('--redirect-uri', options.redirectUri ?? REDIRECT_URI);
  if (options.scope !== undefined) args.push('--scope', options.scope);
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', 'infra/local/cli/oauth-client.ts', ...args],
    {
      cwd: ROOT_DIR,
      env: { ...process.env, TABLE_NAME: '', LOCAL_STATE_DIR: inject('harness').stateDir },
      timeout: 60_000,
    },
  );
  return { client_id: JSON.parse(stdout).client_id, token_endpoint_auth_method: 'none' };
}

export const randomLoopbackAddress = () =>
  `127.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 250)}`;

/** POST JSON from a chosen local address (fetch cannot choose one). */
export function postJsonFrom(localAddress: string, path: string, json: unknown) {
  return postFrom(localAddress, path, 'application/json', JSON.stringify(json));
}

/** POST a form (the token and revocation endpoints' body) from a chosen local address. */
export function postFormFrom(localAddress: string, path: string, form: Record<string, string>) {
  return postFrom(localAddress, path, 'application/x-www-form-urlencoded', String(new URLSearchParams(form)));
}

function postFrom(
  localAddress: string,
  path: string,
  contentType: string,
  body: string,
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: ApiResponse['body'];
}> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      new URL(path, baseUrl()),
      { method: 'POST', localAddress, headers: { 'content-type': contentType } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: text ? JSON.parse(text) : undefined,
          });
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** GET from a chosen local address, answered as fetch answers (fetch cannot choose one). */
function getFrom(localAddress: string, url: URL): Promise<Response> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { localAddress }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          for (const each of [value ?? []].flat()) headers.append(name, each);
        }
        resolve(new Response(Buffer.concat(chunks), { status: response.statusCode ?? 0, headers }));
      });
    });
    request.on('error', reject);
    request.end();
  });
}

export interface AuthorizeInput {
  clientId: string;
  redirectUri?: string;
  scope?: string;
  resource?: string;
  state?: string;
  verifier?: string;
  /** Replace or drop (undefined) any query parameter. */
  params?: Record<string, string | undefined>;
  /** The local address to send from (a caller of its own); fetch's default otherwise. */
  from?: string;
}

export const pkceChallenge = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
export const newVerifier = () => randomBytes(32).toString('base64url');

/** GET /oauth/authorize without following the redirect. */
export async function startAuthorization(input: AuthorizeInput) {
  const verifier = input.verifier ?? newVerifier();
  const state = input.state ?? randomBytes(8).toString('hex');
  const params: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: input.clientId,
    redirect_uri: input.redirectUri ?? REDIRECT_URI,
    scope: input.scope ?? 'edits:read edits:write',
    code_challenge: pkceChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...(input.resource === undefined ? {} : { resource: input.resource }),
    ...input.params,
  };
  const url = new URL('/oauth/authorize', baseUrl());
  for (const [name, value] of Object.entries(params))
    if (value !== undefined) url.searchParams.set(name, value);
  const response = input.from ? await getFrom(input.from, url) : await fetch(url, { redirect: 'manual' });
  const location = response.headers.get('location') ?? undefined;
  const requestId = location ? (new URL(location).searchParams.get('request_id') ?? undefined) : undefined;
  return { response, location, requestId, verifier, state, body: await response.text() };
}

/** What an assistant that stays connected asks for: both edits scopes, and a refresh token. */
export const OFFLINE_SCOPE = 'edits:read edits:write offline_access';

/**
 * The whole flow to tokens: register (unless a client is given), authorize, approve, exchange.
 * Unless told otherwise it asks for OFFLINE_SCOPE, so the tokens include a refresh token.
 */
export async function obtainTokens(options: {
  userToken: string;
  scope?: string;
  resource?: string;
  client?: oauth.Client;
}) {
  const as = await discover();
  const client = options.client ?? (await registerClient());
  const started = await startAuthorization({
    clientId: client.client_id,
    scope: options.scope ?? OFFLINE_SCOPE,
    ...(options.resource === undefined ? {} : { resource: options.resource }),
  });
  if (!started.requestId)
    throw new Error(`authorize did not reach consent: ${started.location ?? started.body}`);
  const decision = await api('POST', `/api/v1/oauth/requests/${started.requestId}/approve`, {
    token: options.userToken,
  });
  if (decision.status !== 200) throw new Error(`approve failed: ${JSON.stringify(decision.body)}`);
  const callback = oauth.validateAuthResponse(as, client, new URL(decision.body.redirect_to), started.state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    callback,
    REDIRECT_URI,
    started.verifier,
    insecure,
  );
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
  return { as, client, tokens };
}

/** POST a form to the token endpoint as a raw client would. */
export async function postForm(path: string, form: Record<string, string>) {
  const response = await fetch(new URL(path, baseUrl()), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/**
 * The browser and the console user, once a client has sent them to its authorization URL: follow
 * it to the consent page (without following the redirect), approve as the user, and return the
 * consent request's id and the URL the browser is sent back to (the redirect URI with the code).
 */
export async function approveAuthorization(authorizationUrl: URL | string, userToken: string) {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = response.headers.get('location');
  const requestId = location ? new URL(location).searchParams.get('request_id') : null;
  if (response.status !== 302 || !requestId) {
    throw new Error(
      `authorize did not reach consent: ${response.status} ${location ?? (await response.text())}`,
    );
  }
  // The service that authorizes is the one that approves (tests may run a stack of their own).
  const decision = await api('POST', `/api/v1/oauth/requests/${requestId}/approve`, {
    token: userToken,
    baseUrl: new URL(authorizationUrl).origin,
  });
  if (decision.status !== 200) throw new Error(`approve failed: ${JSON.stringify(decision.body)}`);
  return { requestId, callback: new URL(decision.body.redirect_to) };
}
