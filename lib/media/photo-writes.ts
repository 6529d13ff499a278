/**
 * Writing a business's photos (the layout is described in photo-store.ts, which reads them). Apart
 * from the reads because the writes need the photo bucket: functions that only read photo items
 * bundle no S3 client and need no PHOTOS_BUCKET, which CDK gives only to functions granted the bucket.
 */
import { createHash, randomUUID } from 'node:crypto';
import { TransactWriteCommand, type TransactWriteCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import type { EventActor } from '#lib/events/change-event.ts';
import { outboxPut } from '#lib/events/outbox.ts';
import { photoPointerItem } from '#lib/media/owner-pointers.ts';
import type { PhotoItem } from '#lib/media/photo-store.ts';
import { photoObjectKey, storeThenWrite } from '#lib/storage/photo-bucket.ts';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

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
  /** Who adds it, for its change event; the platform itself by default (seed, tools, tests). */
  actor?: EventActor;
}

/** The actor of photo changes the platform makes itself: the demo data, the tools. */
export const PLATFORM_ACTOR: EventActor = { kind: 'internal', id: 'platform' };

/** The fields a photo's change event names (docs/events.md): what a consumer may read again. */
const PHOTO_EVENT_FIELDS = ['alt_text', 'content_type', 'height', 'width'];

/**
 * Store a photo: its bytes first, then one transaction with the photo's items and `extraItems`
 * (conditions and records a caller needs in the same transaction, after the four of
 * photoWrites: the last is its change event). When the transaction fails the bytes are removed
 * again and the error rethrown.
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
    dynamo.send(
      new TransactWriteCommand({
        TransactItems: [
          ...photoWrites(photo),
          photoEvent('photo.added', photo.business_id, photo.id, input.actor),
          ...extraItems,
        ],
      }),
    );
  if (input.bytes) {
    const key = photoObjectKey(photo.business_id, photo.id);
    await storeThenWrite({ key, bytes: input.bytes, contentType: photo.content_type }, write);
  } else {
    await write();
  }
  return photo;
}

/**
 * The transaction items that store a new live photo: the item, its owner pointer (with the fields
 * the bytes answer reads, lib/media/owner-pointers.ts), the counter.
 */
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
        Item: photoPointerItem(photo),
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
 * Mark a photo and its owner pointer deleted: it moves to the end of the change feed, and the
 * business leaves the businesses-with-photos list when its last live photo goes.
 */
export async function deletePhoto(
  businessId: string,
  photoId: string,
  actor: EventActor = PLATFORM_ACTOR,
): Promise<void> {
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
          // The pointer says so too: the bytes path reads only the pointer.
          Update: {
            TableName: tableName,
            Key: keys.photoOwner(photoId),
            UpdateExpression: 'SET deleted_at = :now',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':now': now },
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
        photoEvent('photo.deleted', businessId, photoId, actor),
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

function photoEvent(
  type: 'photo.added' | 'photo.deleted',
  businessId: string,
  photoId: string,
  actor: EventActor = PLATFORM_ACTOR,
) {
  return outboxPut({
    type,
    business_id: businessId,
    entity: 'photo',
    record_id: photoId,
    changed_fields: type === 'photo.added' ? PHOTO_EVENT_FIELDS : [],
    actor,
  });
}

const withoutDeletedAt = ({ deleted_at: _deleted, ...rest }: PhotoItem) => rest;
