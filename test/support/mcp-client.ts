import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { expect } from 'vitest';

/**
 * An MCP SDK client's side of OAuth, headless: an OAuthClientProvider that keeps everything in
 * memory and records the browser redirect instead of opening a browser, and a fetch that records
 * every request the SDK makes.
 */
export const REDIRECT_URL = 'http://127.0.0.1:43118/callback';
export const CLIENT_NAME = 'MCP SDK test client';

/** What an assistant keeps for one server, in memory; the browser is only recorded. */
export class MemoryProvider implements OAuthClientProvider {
  readonly authorizationUrls: URL[] = [];
  readonly savedClientInformation: OAuthClientInformationMixed[] = [];
  readonly states: string[] = [];
  readonly clientMetadataUrl?: string;
  private client: OAuthClientInformationMixed | undefined;
  private stored: OAuthTokens | undefined;
  private verifier: string | undefined;

  constructor(options: { clientMetadataUrl?: string; client?: OAuthClientInformationMixed } = {}) {
    if (options.clientMetadataUrl) this.clientMetadataUrl = options.clientMetadataUrl;
    this.client = options.client;
  }

  get redirectUrl() {
    return REDIRECT_URL;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: CLIENT_NAME,
      redirect_uris: [REDIRECT_URL],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    };
  }

  state() {
    const state = randomBytes(16).toString('base64url');
    this.states.push(state);
    return state;
  }

  clientInformation() {
    return this.client;
  }

  saveClientInformation(information: OAuthClientInformationMixed) {
    this.client = information;
    this.savedClientInformation.push(information);
  }

  tokens() {
    return this.stored;
  }

  saveTokens(tokens: OAuthTokens) {
    this.stored = tokens;
  }

  redirectToAuthorization(authorizationUrl: URL) {
    this.authorizationUrls.push(authorizationUrl);
  }

  saveCodeVerifier(codeVerifier: string) {
    this.verifier = codeVerifier;
  }

  codeVerifier() {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }

  /** The tokens, which a test expects to be there. */
  get current(): OAuthTokens {
    if (!this.stored) throw new Error('no tokens saved');
    return this.stored;
  }
}

interface SentRequest {
  method: string;
  path: string;
  /** The form a token request carried. */
  form?: Record<string, string>;
}

/** The fetch the SDK is given (its `fetchFn` option): the real one, every request recorded. */
export function recordingFetch() {
  const sent: SentRequest[] = [];
  const fetchFn: FetchLike = (url, init) => {
    const form = init?.body instanceof URLSearchParams ? Object.fromEntries(init.body) : undefined;
    sent.push({ method: init?.method ?? 'GET', path: new URL(url).pathname, ...(form ? { form } : {}) });
    return fetch(url, init);
  };
  const named = (method: string, path: string) => sent.filter((r) => r.method === method && r.path === path);
  return { fetchFn, sent, named };
}

/** The code and the rest of what the browser brought back to the redirect URI. */
export function callbackParams(callback: URL) {
  expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URL);
  return Object.fromEntries(callback.searchParams);
}
