import { createHash, randomUUID } from 'node:crypto';
import {
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from '#lib/db/batch-get.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { decodeCursor, encodeCursor, keyPart, keyValue } from '#lib/db/cursor.ts';
import { keys, withoutKeys } from '#lib/db/keys.ts';
import { NotFoundError } from '#lib/http/errors.ts';
import { photoObjectKey, storeThenWrite } from '#lib/storage/photo-bucket.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * A business's photos (DESIGN §8): the item `BUSINESS#<b>` / `PHOTO#<id>` with its change-feed
 * keys on gsi1, an owner pointer (the bytes and usages paths name only the photo), and the
 * business's live-photo counter, which carries the sparse `MEDIA_BUSINESSES` keys while it is
 * above 0. Bytes go to S3 first; a photo item never points at missing bytes, and bytes whose item
 * could not be written are removed again.
 */
type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

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

export interface NewPhoto {
  businessId: string;
  id?: string;
  contentType: string;
  width?: number | null;
  height?: number | null;
  altText?: string | null;
  source: PhotoItem['photo_source'];
  derivedFrom?: string | null;
  /** The bytes, for uploads and derived photos; external photos have none of their own. */
  bytes?: Buffer;
  externalUrl?: string | null;
  externalExpiresAt?: string | null;
}

/**
 * Store a photo: its bytes first, then one transaction with the photo's items and `extraItems`
 * (conditions and records a caller needs in the same transaction, after the three of
 * photoWrites). When the transaction fails the bytes are removed again and the error rethrown.
 */
export async function addPhoto(input: NewPhoto, extraItems: TransactItem[] = []): Promise<PhotoItem> {
  const now = new Date().toISOString();
  const photo: PhotoItem = {
    id: input.id ?? randomUUID(),
    business_id: input.businessId,
    content_type: input.contentType,
    size_bytes: input.bytes?.length ?? null,
    width: input.width ?? null,
    height: input.height ?? null,
    sha256: input.bytes ? createHash('sha256').update(input.bytes).digest('hex') : null,
    alt_text: input.altText ?? null,
    photo_source: input.source,
    derived_from: input.derivedFrom ?? null,
    external_url: input.externalUrl ?? null,
    external_expires_at: input.externalExpiresAt ?? null,
    deleted_at: null,
    created_at: now,
    updated_at: now,
  };
  const write = () =>
    dynamo.send(new TransactWriteCommand({ TransactItems: [...photoWrites(photo), ...extraItems] }));
  if (input.bytes) {
    const key = photoObjectKey(photo.business_id, photo.id);
    await storeThenWrite({ key, bytes: input.bytes, contentType: photo.content_type }, write);
  } else {
    await write();
  }
  return photo;
}

/** The transaction items that store a new live photo: the item, its owner pointer, the counter. */
export function photoWrites(photo: PhotoItem): TransactItem[] {
  return [
    {
      Put: {
        TableName: tableName,
        Item: {
          ...keys.photo(photo.business_id, photo.id),
          ...keys.photoFeed(photo.business_id, photo.updated_at, photo.id),
          // A live photo has no deleted_at attribute (records check `attribute_not_exists(deleted_at)`).
          ...withoutDeletedAt(photo),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: tableName,
        Item: { ...keys.photoOwner(photo.id), business_id: photo.business_id },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Update: {
        TableName: tableName,
        Key: keys.livePhotoCount(photo.business_id),
        UpdateExpression: 'ADD live_photos :one SET gsi1pk = :gsi1pk, gsi1sk = :gsi1sk, business_id = :b',
        ExpressionAttributeValues: { ':one': 1, ...gsiValues(photo.business_id), ':b': photo.business_id },
      },
    },
  ];
}

const gsiValues = (businessId: string) => {
  const { gsi1pk, gsi1sk } = keys.mediaBusiness(businessId);
  return { ':gsi1pk': gsi1pk, ':gsi1sk': gsi1sk };
};

/**
 * Mark a photo deleted: it moves to the end of the change feed, and the business leaves the
 * businesses-with-photos list when its last live photo goes.
 */
export async function deletePhoto(businessId: string, photoId: string): Promise<void> {
  const now = new Date().toISOString();
  await dynamo.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: tableName,
            Key: keys.photo(businessId, photoId),
            UpdateExpression: 'SET deleted_at = :now, updated_at = :now, gsi1sk = :feed',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deleted_at)',
            ExpressionAttributeValues: {
              ':now': now,
              ':feed': keys.photoFeed(businessId, now, photoId).gsi1sk,
            },
          },
        },
        {
          Update: {
            TableName: tableName,
            Key: keys.livePhotoCount(businessId),
            UpdateExpression: 'ADD live_photos :minus',
            ExpressionAttributeValues: { ':minus': -1 },
          },
        },
      ],
    }),
  );
  // A separate, conditional step: a concurrent new photo (count back above 0) keeps the keys.
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.livePhotoCount(businessId),
        UpdateExpression: 'REMOVE gsi1pk, gsi1sk',
        ConditionExpression: 'live_photos <= :zero',
        ExpressionAttributeValues: { ':zero': 0 },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
}

/** The photo with this id, in whichever business owns it, or a 404. */
export async function findPhoto(photoId: string): Promise<PhotoItem> {
  const { Item: owner } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: keys.photoOwner(photoId) }),
  );
  const photo = owner
    ? (
        await dynamo.send(
          new GetCommand({ TableName: tableName, Key: keys.photo(String(owner.business_id), photoId) }),
        )
      ).Item
    : undefined;
  if (!photo) throw new NotFoundError(`No photo ${photoId}`);
  return storedPhoto(photo);
}

/** Businesses with at least one live photo, by business id (one Query of the sparse index). */
export async function listMediaBusinesses(page: { limit: number; cursor?: string | undefined }) {
  const { gsi1pk } = keys.mediaBusiness('');
  const binding = ['media-businesses'];
  const start = decodeCursor(
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
    next_cursor: encodeCursor(binding, result.LastEvaluatedKey),
  };
}

/**
 * A business's photos as a change feed: ordered by updated_at then id, ascending, from after
 * `updated_after` (exclusive), one Query per page (DESIGN §8).
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
  const start = decodeCursor(
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
    items: (result.Items ?? []).map((item) => photoView(storedPhoto(item))),
    next_cursor: encodeCursor(binding, result.LastEvaluatedKey),
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

const withoutDeletedAt = ({ deleted_at: _deleted, ...rest }: PhotoItem) => rest;

/** A photo as stored, with deleted_at null while it is live. */
const storedPhoto = (item: Record<string, unknown>): PhotoItem =>
  ({ ...withoutKeys(item), deleted_at: item.deleted_at ?? null }) as unknown as PhotoItem;

/** The wire shape: `asset_id` is the photo id. */
export function photoView(photo: PhotoItem) {
  const { id, ...rest } = photo;
  return { asset_id: id, ...rest };
}
