import { calculatePKCECodeChallenge, generateRandomCodeVerifier, generateRandomState } from 'oauth4webapi';
import * as z from '#lib/validation/zod.ts';
import type { ConsolePagesConfig } from '../config.ts';
import { forgetToken, storeToken } from './session.ts';
import { safeNext, siteUrl } from './site.ts';

/**
 * The one sign-in adapter: OAuth 2.0 authorization code with PKCE (S256) for a public client, as
 * Cognito managed login speaks it, and as the local dev issuer speaks it too. The token request is
 * a form POST from the page (no client secret); the access token is what the API takes.
 */
const PENDING_KEY = 'bps-console-sign-in';
const CALLBACK_PAGE = 'auth/callback';

const Pending = z.strictObject({ state: z.string(), verifier: z.string(), next: z.string() });
const TokenAnswer = z.looseObject({ access_token: z.string().check(z.minLength(1)), token_type: z.string() });

/** Go to the sign-in page of the identity provider, coming back to `next` afterwards. */
export async function startSignIn(config: ConsolePagesConfig, next: string): Promise<void> {
  const verifier = generateRandomCodeVerifier();
  const state = generateRandomState();
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ state, verifier, next: safeNext(next) }));
  const url = new URL(config.signIn.authorizeUrl);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: config.signIn.clientId,
    redirect_uri: siteUrl(CALLBACK_PAGE),
    scope: config.signIn.scopes.join(' '),
    state,
    code_challenge: await calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  window.location.assign(url.href);
}

/**
 * The callback (`<site>/auth/callback?code&state`): check the state against the sign-in this tab
 * started, exchange the code, keep the access token. Where to go next, or what went wrong.
 */
export async function finishSignIn(
  config: ConsolePagesConfig,
  params: URLSearchParams,
): Promise<{ next: string } | { problem: string }> {
  const pending = Pending.safeParse(parseJson(sessionStorage.getItem(PENDING_KEY)));
  sessionStorage.removeItem(PENDING_KEY);
  const error = params.get('error');
  if (error) return { problem: `The sign-in page answered ${params.get('error_description') ?? error}.` };
  if (!pending.success || params.get('state') !== pending.data.state) {
    return { problem: 'This answer does not belong to a sign-in started in this tab.' };
  }
  const code = params.get('code');
  if (!code) return { problem: 'The sign-in page sent no code.' };
  let status = 0;
  let body: unknown = null;
  try {
    const response = await fetch(config.signIn.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: siteUrl(CALLBACK_PAGE),
        client_id: config.signIn.clientId,
        code_verifier: pending.data.verifier,
      }),
    });
    status = response.status;
    body = parseJson(await response.text());
  } catch (failure) {
    return { problem: `The token endpoint did not answer (${(failure as Error).message}).` };
  }
  const tokens = TokenAnswer.safeParse(body);
  if (status !== 200 || !tokens.success || tokens.data.token_type.toLowerCase() !== 'bearer') {
    const reason = (body as { error_description?: unknown; error?: unknown } | null) ?? {};
    return {
      problem:
        `The token endpoint answered ${status} ${String(reason.error_description ?? reason.error ?? '')}`.trim(),
    };
  }
  storeToken(tokens.data.access_token);
  return { next: pending.data.next };
}

/** Forget the token here, and end the identity provider's session when it has a logout URL. */
export function signOut(config: ConsolePagesConfig): void {
  forgetToken();
  if (!config.signIn.logoutUrl) {
    window.location.assign(siteUrl());
    return;
  }
  const url = new URL(config.signIn.logoutUrl);
  url.search = new URLSearchParams({ client_id: config.signIn.clientId, logout_uri: siteUrl() }).toString();
  window.location.assign(url.href);
}

function parseJson(text: string | null): unknown {
  try {
    return text === null ? null : JSON.parse(text);
  } catch {
    return null;
  }
}
