import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { storedItem } from '#lib/db/stored-item.ts';
import type { OAuthClient } from '#lib/oauth/clients.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * What the table remembers of a Client ID Metadata Document URL (client-metadata-document.ts), in
 * the URL's client item: the client its document described, fresh until an epoch and kept a day
 * longer as a last good copy; or that fetching it failed, until an epoch. Either kind expires by
 * TTL; reads check the epochs themselves, since TTL deletes late.
 */
export type CachedDocument =
  | { state: 'fresh'; client: OAuthClient }
  /** Past its freshness: used only when a fetch limit refuses a new fetch. */
  | { state: 'stale'; client: OAuthClient }
  | { state: 'failed' }
  | { state: 'none' };

/** How long a last good copy is kept past its freshness, for when a fetch limit refuses. */
const STALE_KEPT_SECONDS = 24 * 60 * 60;

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

const nowSeconds = () => Math.floor(Date.now() / 1000);

export async function readCachedDocument(url: string): Promise<CachedDocument> {
  const { Item } = await dynamo.send(new GetCommand({ TableName: tableName, Key: keys.oauthClient(url) }));
  if (Item?.source !== 'metadata_document') return { state: 'none' };
  if (typeof Item.failed_until_epoch === 'number') {
    return Item.failed_until_epoch > nowSeconds() ? { state: 'failed' } : { state: 'none' };
  }
  const { fresh_until_epoch, ...client } = cachedDocumentItem.fromItem(Item);
  if (fresh_until_epoch > nowSeconds()) return { state: 'fresh', client };
  return fresh_until_epoch + STALE_KEPT_SECONDS > nowSeconds()
    ? { state: 'stale', client }
    : { state: 'none' };
}

/** The client a fetched document described, fresh for `seconds`. */
export async function cacheDocument(client: OAuthClient, seconds: number): Promise<void> {
  const freshUntil = nowSeconds() + seconds;
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...keys.oauthClient(client.client_id),
        ...client,
        fresh_until_epoch: freshUntil,
        expires_at_epoch: freshUntil + STALE_KEPT_SECONDS,
      },
    }),
  );
}

/**
 * A fetch of `url` failed (any failure: refused address, timeout, status, unusable document): it
 * is not fetched again for `seconds`. The item replaces any copy of an earlier document.
 */
export async function cacheFailure(url: string, seconds: number): Promise<void> {
  const failedUntil = nowSeconds() + seconds;
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...keys.oauthClient(url),
        client_id: url,
        // The kind of every item under a document URL's key: a registered client's lookup and
        // the revoke command pass over it.
        source: 'metadata_document',
        failed_until_epoch: failedUntil,
        expires_at_epoch: failedUntil,
      },
    }),
  );
}
