import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { storedItem } from '#lib/db/stored-item.ts';
import { cacheLifetime } from '#lib/net/cache-lifetime.ts';
import { SafeFetchError, safeFetch, trustedOrigins } from '#lib/net/safe-fetch.ts';
import { clientMetadataUrlProblem } from '#lib/oauth/client-metadata-url.ts';
import { clientNameProblem } from '#lib/oauth/client-name.ts';
import { registeredScopes } from '#lib/oauth/client-scopes.ts';
import type { OAuthClient } from '#lib/oauth/clients.ts';
import { redirectUriProblem } from '#lib/oauth/redirect-uris.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * Client ID Metadata Documents (docs/architecture.md, 'Clients'): a client_id that is an https URL
 * names a JSON document describing the client. It is fetched through the SSRF guard (5 KB, HTTP 200
 * only, no redirects), must name itself as client_id, and is cached in the table for as long as its
 * cache headers allow, at most 24 hours. A failure is never cached: the next request fetches again.
 * Its client_name, redirect URIs and optional scope follow the rules a registration follows; a
 * document that breaks one is unusable as a whole.
 */
const MAX_DOCUMENT_BYTES = 5 * 1024;
const FETCH_TIMEOUT_MS = 3_000;
const MAX_CACHE_SECONDS = 24 * 60 * 60;

const ClientMetadataDocument = z.object({
  client_id: z.string(),
  client_name: z.string().check(z.minLength(1), z.maxLength(200)),
  redirect_uris: z.array(z.string().check(z.maxLength(2000))).check(z.minLength(1), z.maxLength(10)),
  token_endpoint_auth_method: z.optional(z.literal('none')),
  scope: z.optional(z.string().check(z.maxLength(500))),
});

/** A document as cached in the table (writeCache): the client it describes, fresh until the epoch. */
const cachedDocumentItem = storedItem<OAuthClient & { fresh_until_epoch: number }>(
  'cached client metadata document',
  () =>
    z.object({
      client_id: z.string(),
      client_name: z.string(),
      redirect_uris: z.array(z.string()),
      source: z.literal('metadata_document'),
      scope: z.optional(z.string()),
      fresh_until_epoch: z.number(),
    }),
);

/** A client_id in URL form; http is only ever fetched for origins the SSRF guard's allow-list names. */
export const isClientMetadataUrl = (clientId: string) => /^https?:\/\//i.test(clientId);

/** Why a client_id in URL form can never name a document (see client-metadata-url.ts), or undefined. */
export const metadataUrlProblem = (url: string) => clientMetadataUrlProblem(url, trustedOrigins());

/** The client the document describes, or undefined (the authorize endpoint's error page says why). */
export async function fetchClientMetadataDocument(url: string): Promise<OAuthClient | undefined> {
  if (metadataUrlProblem(url)) return undefined;
  const cached = await readCache(url);
  if (cached) return cached;
  const fetched = await fetchDocument(url);
  if (!fetched) return undefined;
  if (fetched.cacheSeconds > 0) await writeCache(fetched.client, fetched.cacheSeconds);
  return fetched.client;
}

async function fetchDocument(url: string) {
  let response: Awaited<ReturnType<typeof safeFetch>>;
  try {
    response = await safeFetch(url, {
      maxBytes: MAX_DOCUMENT_BYTES,
      timeoutMs: FETCH_TIMEOUT_MS,
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
  return { client, cacheSeconds: Math.min(cacheLifetime(response.headers), MAX_CACHE_SECONDS) };
}

async function readCache(url: string): Promise<OAuthClient | undefined> {
  const { Item } = await dynamo.send(new GetCommand({ TableName: tableName, Key: keys.oauthClient(url) }));
  if (Item?.source !== 'metadata_document') return undefined;
  const { fresh_until_epoch, ...client } = cachedDocumentItem.fromItem(Item);
  return fresh_until_epoch * 1000 <= Date.now() ? undefined : client;
}

async function writeCache(client: OAuthClient, seconds: number): Promise<void> {
  const freshUntil = Math.floor(Date.now() / 1000) + seconds;
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...keys.oauthClient(client.client_id),
        ...client,
        fresh_until_epoch: freshUntil,
        expires_at_epoch: freshUntil,
      },
    }),
  );
}
