import { RateLimitedError } from '#lib/http/errors.ts';
import { cacheLifetime } from '#lib/net/cache-lifetime.ts';
import { SafeFetchError, safeFetch, trustedOrigins } from '#lib/net/safe-fetch.ts';
import { cacheDocument, cacheFailure, readCachedDocument } from '#lib/oauth/client-metadata-cache.ts';
import { clientMetadataUrlProblem } from '#lib/oauth/client-metadata-url.ts';
import { clientNameProblem } from '#lib/oauth/client-name.ts';
import { registeredScopes } from '#lib/oauth/client-scopes.ts';
import type { OAuthClient } from '#lib/oauth/clients.ts';
import { redirectUriProblem } from '#lib/oauth/redirect-uris.ts';
import { admitInWindow, type FixedWindowLimit } from '#lib/rate/fixed-window.ts';
import { sourceKey } from '#lib/rate/source-key.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * Client ID Metadata Documents (docs/oauth.md, 'Clients'): a client_id that is an https URL
 * names a JSON document describing the client. It is fetched through the SSRF guard (5 KB, HTTP 200
 * only, no redirects, the whole fetch within 1.5 s), must name itself as client_id, and is cached
 * in the table for as long as its cache headers allow, but never less than 5 minutes nor more
 * than 24 hours: whoever names the URL, not its publisher, decides how often it is asked for. A
 * failure is cached for a minute. Fetches are limited per source (the authorize caller) and per
 * host (the document's), so neither one caller nor many can aim the service at one site; a
 * refused fetch sends nothing, and uses the last good copy of the document if one is kept.
 * Its client_name, redirect URIs and optional scope follow the rules a registration follows; a
 * document that breaks one is unusable as a whole.
 */
const MAX_DOCUMENT_BYTES = 5 * 1024;
/** safeFetch's deadline covers the whole fetch (DNS, connect, TLS, headers, body), not each read. */
const FETCH_DEADLINE_MS = 1_500;
const MIN_CACHE_SECONDS = 5 * 60;
const MAX_CACHE_SECONDS = 24 * 60 * 60;
const FAILURE_CACHE_SECONDS = 60;

/**
 * Fetches (cache misses) admitted per minute. A person connecting an assistant causes one at most
 * per document and 5 minutes, and the cache is shared by every caller, so a source needs few; a
 * host publishes a handful of documents, each fetched at most every 5 minutes.
 */
export const DOCUMENT_FETCH_LIMITS = {
  source: { name: 'document-fetch-source', limit: 30, windowSeconds: 60 },
  host: { name: 'document-fetch-host', limit: 60, windowSeconds: 60 },
} as const satisfies Record<string, FixedWindowLimit>;

const ClientMetadataDocument = z.object({
  client_id: z.string(),
  client_name: z.string().check(z.minLength(1), z.maxLength(200)),
  redirect_uris: z.array(z.string().check(z.maxLength(2000))).check(z.minLength(1), z.maxLength(10)),
  token_endpoint_auth_method: z.optional(z.literal('none')),
  scope: z.optional(z.string().check(z.maxLength(500))),
});

/** A client_id in URL form; http is only ever fetched for origins the SSRF guard's allow-list names. */
export const isClientMetadataUrl = (clientId: string) => /^https?:\/\//i.test(clientId);

/** Why a client_id in URL form can never name a document (see client-metadata-url.ts), or undefined. */
export const metadataUrlProblem = (url: string) => clientMetadataUrlProblem(url, trustedOrigins());

/**
 * The client the document describes, or undefined (the authorize endpoint's error page says why).
 * A fetch refused by a limit, with no last good copy to use, is a RateLimitedError.
 */
export async function fetchClientMetadataDocument(
  url: string,
  sourceIp: string,
): Promise<OAuthClient | undefined> {
  if (metadataUrlProblem(url)) return undefined;
  const cached = await readCachedDocument(url);
  if (cached.state === 'fresh') return cached.client;
  if (cached.state === 'failed') return undefined;
  try {
    await admitFetch(url, sourceIp);
  } catch (error) {
    if (error instanceof RateLimitedError && cached.state === 'stale') return cached.client;
    throw error;
  }
  const fetched = await fetchDocument(url);
  if (!fetched) {
    await cacheFailure(url, FAILURE_CACHE_SECONDS);
    return undefined;
  }
  await cacheDocument(fetched.client, fetched.cacheSeconds);
  return fetched.client;
}

/**
 * Counts a fetch for the caller's source, then for the document's host; refuses past either. In
 * this order, so that a source past its limit spends nothing of the host's.
 */
async function admitFetch(url: string, sourceIp: string): Promise<void> {
  await admitInWindow(
    DOCUMENT_FETCH_LIMITS.source,
    sourceKey(sourceIp),
    'Too many client metadata documents were fetched for this address',
  );
  await admitInWindow(
    DOCUMENT_FETCH_LIMITS.host,
    new URL(url).hostname,
    'Too many client metadata documents were fetched from this site',
  );
}

async function fetchDocument(url: string) {
  let response: Awaited<ReturnType<typeof safeFetch>>;
  try {
    response = await safeFetch(url, {
      maxBytes: MAX_DOCUMENT_BYTES,
      timeoutMs: FETCH_DEADLINE_MS,
      accept: 'application/json',
    });
  } catch (error) {
    if (error instanceof SafeFetchError) return undefined;
    throw error;
  }
  if (response.status !== 200) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(response.body.toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = ClientMetadataDocument.safeParse(json);
  if (!parsed.success || parsed.data.client_id !== url) return undefined;
  if (parsed.data.redirect_uris.some((uri) => redirectUriProblem(uri) !== undefined)) return undefined;
  if (clientNameProblem(parsed.data.client_name)) return undefined;
  const scopes = registeredScopes(parsed.data.scope);
  if (!Array.isArray(scopes)) return undefined;
  const client: OAuthClient = {
    client_id: url,
    client_name: parsed.data.client_name,
    redirect_uris: parsed.data.redirect_uris,
    source: 'metadata_document',
    ...(parsed.data.scope === undefined ? {} : { scope: scopes.join(' ') }),
  };
  const cacheSeconds = Math.min(
    Math.max(cacheLifetime(response.headers), MIN_CACHE_SECONDS),
    MAX_CACHE_SECONDS,
  );
  return { client, cacheSeconds };
}
