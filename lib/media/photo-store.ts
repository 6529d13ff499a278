import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from '#lib/db/batch-get.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { decodeCursor, encodeCursor, keyPart, keyValue } from '#lib/db/cursor.ts';
import { keys } from '#lib/db/keys.ts';
import { storedItem } from '#lib/db/stored-item.ts';
import { NotFoundError } from '#lib/http/errors.ts';
import { carriesBytesFields, type PhotoBytesFields, photoBytesMask } from '#lib/media/owner-pointers.ts';
import { once } from '#lib/validation/lazy.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * A business's photos (docs/media.md): the item `BUSINESS#<b>` / `PHOTO#<id>` with
 * its change-feed keys on gsi1, an owner pointer (the bytes and usages paths name only the photo),
 * and the business's live-photo counter, which carries the sparse `MEDIA_BUSINESSES` keys while it
 * is above 0. Read here; written by photo-writes.ts, which puts the bytes in S3 first, so that a
 * photo item never points at missing bytes, and removes them again when the item could not be
 * written.
 */
export interface PhotoItem {
  id: string;
  business_id: string;
  content_type: string;
  size_bytes: number | null;
  width: number | null;
  height: number | null;
  sha256: string | null;
  alt_text: string | null;
  photo_source: 'upload' | 'external' | 'derived';
  derived_from: string | null;
  external_url: string | null;
  external_expires_at: string | null;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A photo's item; deleted_at is absent while it is live (the feed filters on that) and null here. */
const photoSchema = once(() =>
  z.object({
    id: z.string(),
    business_id: z.string(),
    content_type: z.string(),
    size_bytes: z.nullable(z.number()),
    width: z.nullable(z.number()),
    height: z.nullable(z.number()),
    sha256: z.nullable(z.string()),
    alt_text: z.nullable(z.string()),
    photo_source: z.enum(['upload', 'external', 'derived']),
    derived_from: z.nullable(z.string()),
    external_url: z.nullable(z.string()),
    external_expires_at: z.nullable(z.string()),
    deleted_at: z._default(z.nullable(z.string()), null),
    created_at: z.string(),
    updated_at: z.string(),
  }),
);
const photoItem = storedItem<PhotoItem>('photo', photoSchema);
/** The owner pointer as it is written now: the photo item's bytes fields (owner-pointers.ts). */
const photoPointer = storedItem<PhotoBytesFields>('photo owner pointer', () =>
  z.pick(photoSchema(), photoBytesMask),
);

/**
 * What answering for the bytes of the photo with this id reads, in whichever business owns it, or a
 * 404: its owner pointer alone (one GetItem), or the photo item too for a pointer written before
 * pointers carried those fields.
 */
export async function findPhoto(photoId: string): Promise<PhotoBytesFields> {
  const { Item: owner } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: keys.photoOwner(photoId) }),
  );
  if (owner && carriesBytesFields(owner)) return photoPointer.fromItem(owner);
  const photo = owner
    ? (
        await dynamo.send(
          new GetCommand({ TableName: tableName, Key: keys.photo(String(owner.business_id), photoId) }),
        )
      ).Item
    : undefined;
  if (!photo) throw new NotFoundError(`No photo ${photoId}`);
  return photoItem.fromItem(photo);
}

/** Businesses with at least one live photo, by business id (one Query of the sparse index). */
export async function listMediaBusinesses(page: { limit: number; cursor?: string | undefined }) {
  const { gsi1pk } = keys.mediaBusiness('');
  const binding = ['media-businesses'];
  const start = await decodeCursor(
    page.cursor,
    binding,
    z.strictObject({
      pk: keyPart('BUSINESS#'),
      sk: keyValue(keys.livePhotoCount('').sk),
      gsi1pk: keyValue(gsi1pk),
      gsi1sk: keyPart(''),
    }),
  );
  const result = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': gsi1pk },
      Limit: page.limit,
      ...(start ? { ExclusiveStartKey: start } : {}),
    }),
  );
  return {
    businesses: (result.Items ?? []).map((item) => ({
      business_id: String(item.business_id),
      live_photo_count: Number(item.live_photos),
    })),
    next_cursor: await encodeCursor(binding, result.LastEvaluatedKey),
  };
}

/**
 * A business's photos as a change feed: ordered by updated_at then id, ascending, from after
 * `updated_after` (exclusive), one Query per page, so a backfill can resume and never miss a later change.
 */
export async function listPhotos(query: {
  businessId: string;
  includeDeleted: boolean;
  updatedAfter?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}) {
  const { gsi1pk } = keys.photoFeed(query.businessId, '', '');
  // The same instant in any RFC 3339 spelling is the same filter (and the same cursor binding).
  const after = query.updatedAfter ? new Date(query.updatedAfter).toISOString() : undefined;
  const binding = ['photos', query.businessId, query.includeDeleted, after ?? null];
  const { pk } = keys.photo(query.businessId, '');
  const start = await decodeCursor(
    query.cursor,
    binding,
    z.strictObject({
      pk: keyValue(pk),
      sk: keyPart('PHOTO#'),
      gsi1pk: keyValue(gsi1pk),
      gsi1sk: keyPart(''),
    }),
  );
  const result = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'gsi1',
      // '~' sorts after every character of an id: everything at `after` itself is left out.
      KeyConditionExpression: after ? 'gsi1pk = :pk AND gsi1sk > :after' : 'gsi1pk = :pk',
      ...(query.includeDeleted ? {} : { FilterExpression: 'attribute_not_exists(deleted_at)' }),
      ExpressionAttributeValues: { ':pk': gsi1pk, ...(after ? { ':after': `${after}#~` } : {}) },
      Limit: query.limit,
      ...(start ? { ExclusiveStartKey: start } : {}),
    }),
  );
  return {
    items: (result.Items ?? []).map((item) => photoView(photoItem.fromItem(item))),
    next_cursor: await encodeCursor(binding, result.LastEvaluatedKey),
  };
}

/** Whether a user is a member (any role) of a business; an unknown business is a 404. */
export async function membership(businessId: string, userId: string) {
  const items = await batchGetAll([keys.business(businessId), keys.member(businessId, userId)]);
  if (!items.some((item) => item.sk === keys.business(businessId).sk)) {
    throw new NotFoundError(`No business ${businessId}`);
  }
  return {
    business_id: businessId,
    user_id: userId,
    is_member: items.some((item) => String(item.sk).startsWith('MEMBER#')),
  };
}

/** The wire shape: `asset_id` is the photo id. */
export function photoView(photo: PhotoItem) {
  const { id, ...rest } = photo;
  return { asset_id: id, ...rest };
}
