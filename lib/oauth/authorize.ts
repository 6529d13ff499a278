import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { requiredEnv } from '#lib/config/env.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { storedItem } from '#lib/db/stored-item.ts';
import { RateLimitedError } from '#lib/http/errors.ts';
import { isClientMetadataUrl, metadataUrlProblem } from '#lib/oauth/client-metadata-document.ts';
import { grantedScopes } from '#lib/oauth/client-scopes.ts';
import { CLIENT_SOURCES, type ClientSource, clientSource } from '#lib/oauth/client-source.ts';
import { type OAuthClient, resolveClient } from '#lib/oauth/clients.ts';
import { redirectHost, redirectUriMatches } from '#lib/oauth/redirect-uris.ts';
import {
  CONSENT_REQUEST_SECONDS,
  canonicalResource,
  issuer,
  resources,
  type Scope,
  SUPPORTED_SCOPES,
} from '#lib/oauth/settings.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * GET /oauth/authorize (docs/oauth.md, 'The authorization server'). The client and its
 * redirect URI are judged first: until both are trusted nothing is sent anywhere, and a failure is
 * an error page. After that a failure goes back to a pre-registered client as an RFC 6749 §4.1.2.1
 * error redirect carrying `state` and `iss`; for a client nobody vetted it is an error page too
 * (see refusal below). Success stores a pending consent request (10 minutes) and sends the browser
 * to the console.
 */
export type AuthorizeOutcome =
  | { kind: 'redirect'; location: string }
  /** With `retryAfterSeconds` when a limit refused the request (a 429). */
  | { kind: 'error-page'; message: string; retryAfterSeconds?: number };

export interface AuthorizeParams {
  response_type?: string | undefined;
  client_id?: string | undefined;
  redirect_uri?: string | undefined;
  scope?: string | undefined;
  state?: string | undefined;
  code_challenge?: string | undefined;
  code_challenge_method?: string | undefined;
  resource?: string | undefined;
}

/** What a pending consent request holds until the person decides. */
export interface ConsentRequestItem {
  id: string;
  client_id: string;
  client_name: string;
  client_source: ClientSource;
  redirect_uri: string;
  state: string | null;
  code_challenge: string;
  scopes: Scope[];
  resource: string;
  status: 'pending' | 'approved' | 'denied';
  owner_user_id?: string;
  created_at: string;
  expires_at: string;
}

export const consentRequestItem = storedItem<ConsentRequestItem>('OAuth consent request', () =>
  z.object({
    id: z.string(),
    client_id: z.string(),
    client_name: z.string(),
    client_source: z.enum(CLIENT_SOURCES),
    redirect_uri: z.string(),
    state: z.nullable(z.string()),
    code_challenge: z.string(),
    scopes: z.array(z.enum(SUPPORTED_SCOPES)),
    resource: z.string(),
    status: z.enum(['pending', 'approved', 'denied']),
    owner_user_id: z.optional(z.string()),
    created_at: z.string(),
    expires_at: z.string(),
  }),
);

/** An S256 challenge is the base64url SHA-256 of the verifier: 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const MAX_CLIENT_ID_LENGTH = 1000;
const consoleUrl = () => requiredEnv('CONSOLE_URL').replace(/\/+$/, '');

/** `sourceIp` is the caller's: fetches of metadata documents are limited per source. */
export async function authorize(params: AuthorizeParams, sourceIp: string): Promise<AuthorizeOutcome> {
  const { client_id: clientId, redirect_uri: requestedRedirect } = params;
  if (!clientId) return errorPage('The request names no client_id.');
  if (clientId.length > MAX_CLIENT_ID_LENGTH) return errorPage('The client_id is too long.');
  const urlProblem = isClientMetadataUrl(clientId) ? metadataUrlProblem(clientId) : undefined;
  if (urlProblem) return errorPage(`The client_id ${urlProblem}.`);
  let client: OAuthClient | undefined;
  try {
    client = await resolveClient(clientId, sourceIp);
  } catch (error) {
    if (!(error instanceof RateLimitedError)) throw error;
    return {
      kind: 'error-page',
      message: `${error.message}; this client's was not fetched. Try again in ${error.retryAfterSeconds} seconds.`,
      retryAfterSeconds: error.retryAfterSeconds,
    };
  }
  if (!client) {
    return errorPage(
      'The client is unknown: it is not registered, or its client metadata document could not be used.',
    );
  }
  const redirectUri = chooseRedirectUri(client, requestedRedirect);
  if (!redirectUri) {
    return errorPage('The redirect_uri is not one the client registered, so nothing was sent to it.');
  }

  const back = refusal(client, redirectUri, params.state);
  if (params.response_type !== 'code')
    return back('unsupported_response_type', 'Only response_type=code is supported');
  if (!params.code_challenge) return back('invalid_request', 'PKCE is required: send code_challenge (S256)');
  if (params.code_challenge_method !== 'S256') {
    return back('invalid_request', 'code_challenge_method must be S256');
  }
  if (!S256_CHALLENGE.test(params.code_challenge)) {
    return back('invalid_request', 'code_challenge must be a base64url SHA-256 (43 characters)');
  }
  const scopes = grantedScopes(params.scope, client.scope);
  if (!Array.isArray(scopes)) return back('invalid_scope', scopes.problem);
  const resource = params.resource === undefined ? resources().mcp : canonicalResource(params.resource);
  if (!resource) return back('invalid_target', 'resource must be this service’s /mcp or /api/v1/edits');

  const now = new Date();
  const request: ConsentRequestItem = {
    id: randomUUID(),
    client_id: client.client_id,
    // A registration may leave the name out: then the place the code goes names the client.
    client_name: client.client_name || redirectHost(redirectUri),
    client_source: clientSource(client),
    redirect_uri: redirectUri,
    state: params.state ?? null,
    code_challenge: params.code_challenge,
    scopes,
    resource,
    status: 'pending',
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + CONSENT_REQUEST_SECONDS * 1000).toISOString(),
  };
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...keys.oauthConsentRequest(request.id),
        ...request,
        // Kept a day past its expiry so that a late decision answers 410, not 404.
        expires_at_epoch: Math.ceil(now.getTime() / 1000) + CONSENT_REQUEST_SECONDS + 24 * 3600,
      },
    }),
  );
  return {
    kind: 'redirect',
    location: `${consoleUrl()}/oauth/consent?request_id=${encodeURIComponent(request.id)}`,
  };
}

/** The registered redirect URI the request means; a client with exactly one may leave it out. */
function chooseRedirectUri(client: OAuthClient, requested: string | undefined): string | undefined {
  if (requested === undefined) return client.redirect_uris.length === 1 ? client.redirect_uris[0] : undefined;
  return redirectUriMatches(client.redirect_uris, requested) ? requested : undefined;
}

/**
 * How a request is refused once client and redirect URI are known. A pre-registered client's
 * redirect URIs were vetted by an operator, so the refusal goes back there (RFC 6749 §4.1.2.1).
 * Anyone can register a client or publish a metadata document with any redirect URI, so
 * redirecting their errors would make this endpoint an open redirector (RFC 9700 §4.11.2): a link
 * to this trusted host, with a parameter broken on purpose, would send the browser on to any site
 * without a person ever being asked. Their refusals stay on an error page.
 */
function refusal(client: OAuthClient, redirectUri: string, state: string | undefined) {
  return (error: string, description: string): AuthorizeOutcome =>
    clientSource(client) === 'preregistered'
      ? {
          kind: 'redirect',
          location: withParams(redirectUri, { error, error_description: description, state }),
        }
      : errorPage(`The assistant’s request cannot be used (${error}): ${description}.`);
}

/** A redirect back to the client: its URI with our parameters added, and always `iss` (RFC 9207). */
export function withParams(uri: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries({ ...params, iss: issuer() })) {
    if (value !== undefined && value !== null) url.searchParams.set(name, value);
  }
  return url.toString();
}

function errorPage(message: string): AuthorizeOutcome {
  return { kind: 'error-page', message };
}
