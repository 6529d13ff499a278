import * as oauth from 'oauth4webapi';
import type { ReviewHostConfig } from '../review-host-config.ts';

/**
 * How the local review host gets an assistant access token of the person using it: it is an OAuth
 * client of the service's own authorization server, like any assistant. Authorization code with
 * PKCE (S256) against /oauth/authorize, whose consent page (the console pages, which sign the
 * person in first) asks them to approve it; the code comes back to this page and is exchanged at
 * /oauth/token. The client is pre-registered by the harness (dev-review-host.ts), so the consent
 * page names it as vouched for by the operator, and the grant shows among the person's connected
 * assistants, where Disconnect ends it. Tokens live in this tab's sessionStorage; the access token
 * (15 minutes) is renewed with the refresh token.
 */
type AssistantClientConfig = Pick<ReviewHostConfig, 'issuer' | 'clientId' | 'redirectUri' | 'scope'>;

const TOKENS_KEY = 'bps-review-host-tokens';
const PENDING_KEY = 'bps-review-host-authorization';
/** Renew the access token this long before it expires, so no call goes out with a dying one. */
const RENEW_MARGIN_MS = 30_000;
// The local stack speaks plain http on loopback; oauth4webapi asks for https unless told.
const loopbackHttp = { [oauth.allowInsecureRequests]: true } as const;

interface StoredTokens {
  accessToken: string;
  refreshToken: string | undefined;
  expiresAt: number;
}

interface PendingAuthorization {
  verifier: string;
  state: string;
  /** The page's query to come back to (e.g. `?changeset_id=…`). */
  returnTo: string;
}

const client = (config: AssistantClientConfig): oauth.Client => ({ client_id: config.clientId });

async function discover(config: AssistantClientConfig): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(config.issuer);
  const response = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...loopbackHttp });
  return oauth.processDiscoveryResponse(issuer, response);
}

/** Send the browser to /oauth/authorize; the page comes back to `returnTo` once connected. */
export async function startAuthorization(config: AssistantClientConfig, returnTo: string): Promise<void> {
  const as = await discover(config);
  const pending: PendingAuthorization = {
    verifier: oauth.generateRandomCodeVerifier(),
    state: oauth.generateRandomState(),
    returnTo,
  };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const url = new URL(as.authorization_endpoint ?? `${config.issuer}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: config.clientId,
    redirect_uri: config.redirectUri,
    scope: config.scope,
    resource: `${config.issuer}/mcp`,
    state: pending.state,
    code_challenge: await oauth.calculatePKCECodeChallenge(pending.verifier),
    code_challenge_method: 'S256',
  }).toString();
  window.location.assign(url.href);
}

/** Whether this page load is the authorization's answer (a code or an error in the query). */
export const isAuthorizationAnswer = (url: URL) =>
  url.searchParams.has('state') && (url.searchParams.has('code') || url.searchParams.has('error'));

/**
 * Finish the authorization this tab started: check state and issuer, exchange the code, keep the
 * tokens. Resolves with the query to return to; throws with what went wrong (a denial included).
 */
export async function finishAuthorization(config: AssistantClientConfig, url: URL): Promise<string> {
  const stored = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  if (!stored) throw new Error('This answer does not belong to a connection started in this tab.');
  const pending = JSON.parse(stored) as PendingAuthorization;
  const as = await discover(config);
  const params = oauth.validateAuthResponse(as, client(config), url, pending.state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client(config),
    oauth.None(),
    params,
    config.redirectUri,
    pending.verifier,
    loopbackHttp,
  );
  keepTokens(await oauth.processAuthorizationCodeResponse(as, client(config), response));
  return pending.returnTo;
}

/** A usable access token (renewed when it is about to expire), or undefined: connect first. */
export async function currentAccessToken(config: AssistantClientConfig): Promise<string | undefined> {
  const stored = sessionStorage.getItem(TOKENS_KEY);
  if (!stored) return undefined;
  const tokens = JSON.parse(stored) as StoredTokens;
  if (tokens.expiresAt - RENEW_MARGIN_MS > Date.now()) return tokens.accessToken;
  if (!tokens.refreshToken) return forgetTokens();
  try {
    const as = await discover(config);
    const response = await oauth.refreshTokenGrantRequest(
      as,
      client(config),
      oauth.None(),
      tokens.refreshToken,
      loopbackHttp,
    );
    return keepTokens(await oauth.processRefreshTokenResponse(as, client(config), response));
  } catch {
    // Revoked (Disconnect), expired or reused: the person connects again.
    return forgetTokens();
  }
}

function keepTokens(answer: oauth.TokenEndpointResponse): string {
  const tokens: StoredTokens = {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token,
    expiresAt: Date.now() + (answer.expires_in ?? 0) * 1000,
  };
  sessionStorage.setItem(TOKENS_KEY, JSON.stringify(tokens));
  return tokens.accessToken;
}

export function forgetTokens(): undefined {
  sessionStorage.removeItem(TOKENS_KEY);
  return undefined;
}
