import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { decodeCursor, encodeCursor, keyPart, keyValue } from '#lib/db/cursor.ts';
import { keys } from '#lib/db/keys.ts';
import { storedItem } from '#lib/db/stored-item.ts';
import { NotFoundError } from '#lib/http/errors.ts';
import { carriesBytesFields, type GalleryBytesFields, galleryBytesMask } from '#lib/media/owner-pointers.ts';
import { once } from '#lib/validation/lazy.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * Industry gallery photos: `GALLERY#<industry_id>` / `PHOTO#<id>`, listed through gsi1
 * (every industry, or one), with an owner pointer for the bytes path, which names only the photo.
 * Added (gallery-writes.ts) by the gallery CLI and the seed, never by an API operation.
 */
export interface GalleryPhoto {
  id: string;
  industry_id: string;
  content_type: string;
  size_bytes: number;
  width: number | null;
  height: number | null;
  sha256: string;
  alt_text: string | null;
  created_at: string;
}

const galleryPhotoSchema = once(() =>
  z.object({
    id: z.string(),
    industry_id: z.string(),
    content_type: z.string(),
    size_bytes: z.number(),
    width: z.nullable(z.number()),
    height: z.nullable(z.number()),
    sha256: z.string(),
    alt_text: z.nullable(z.string()),
    created_at: z.string(),
  }),
);
const galleryPhotoItem = storedItem<GalleryPhoto>('gallery photo', galleryPhotoSchema);
/** The owner pointer as it is written now: the gallery photo's bytes fields (owner-pointers.ts). */
const galleryPointer = storedItem<GalleryBytesFields>('gallery photo owner pointer', () =>
  z.pick(galleryPhotoSchema(), galleryBytesMask),
);

/** Gallery photos of one industry, or of all (by industry, then id), a page per Query. */
export async function listGallery(query: {
  industryId?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}) {
  const { gsi1pk } = keys.galleryListing('', '');
  const binding = ['gallery', query.industryId ?? null];
  const start = await decodeCursor(
    query.cursor,
    binding,
    z.strictObject({
      pk: keyPart('GALLERY#'),
      sk: keyPart('PHOTO#'),
      gsi1pk: keyValue(gsi1pk),
      gsi1sk: keyPart(query.industryId ? `${query.industryId}#` : ''),
    }),
  );
  const result = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: query.industryId
        ? 'gsi1pk = :pk AND begins_with(gsi1sk, :industry)'
        : 'gsi1pk = :pk',
      ExpressionAttributeValues: {
        ':pk': gsi1pk,
        ...(query.industryId ? { ':industry': `${query.industryId}#` } : {}),
      },
      Limit: query.limit,
      ...(start ? { ExclusiveStartKey: start } : {}),
    }),
  );
  return {
    items: (result.Items ?? []).map((item) => galleryView(galleryPhotoItem.fromItem(item))),
    next_cursor: await encodeCursor(binding, result.LastEvaluatedKey),
  };
}

/**
 * What answering for the bytes of the gallery photo with this id reads, or a 404: its owner pointer
 * alone (one GetItem), or the photo item too for a pointer written before pointers carried those
 * fields.
 */
export async function findGalleryPhoto(photoId: string): Promise<GalleryBytesFields> {
  const { Item: owner } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: keys.galleryPhotoOwner(photoId) }),
  );
  if (owner && carriesBytesFields(owner)) return galleryPointer.fromItem(owner);
  const photo = owner
    ? (
        await dynamo.send(
          new GetCommand({
            TableName: tableName,
            Key: keys.galleryPhoto(String(owner.industry_id), photoId),
          }),
        )
      ).Item
    : undefined;
  if (!photo) throw new NotFoundError(`No gallery photo ${photoId}`);
  return galleryPhotoItem.fromItem(photo);
}

function galleryView(photo: GalleryPhoto) {
  const { id, ...rest } = photo;
  return { asset_id: id, ...rest };
}
