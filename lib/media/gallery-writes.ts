/**
 * Adding an industry gallery photo: bytes first, then its items (gallery-store.ts reads them). Apart
 * from the reads, which the listing function makes without the photo bucket.
 */
import { createHash, randomUUID } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import type { GalleryPhoto } from '#lib/media/gallery-store.ts';
import { galleryPointerItem } from '#lib/media/owner-pointers.ts';
import { galleryObjectKey, storeThenWrite } from '#lib/storage/photo-bucket.ts';

export async function addGalleryPhoto(input: {
  industryId: string;
  bytes: Buffer;
  contentType: string;
  width?: number | null;
  height?: number | null;
  altText?: string | null;
}): Promise<GalleryPhoto> {
  const photo: GalleryPhoto = {
    id: randomUUID(),
    industry_id: input.industryId,
    content_type: input.contentType,
    size_bytes: input.bytes.length,
    width: input.width ?? null,
    height: input.height ?? null,
    sha256: createHash('sha256').update(input.bytes).digest('hex'),
    alt_text: input.altText ?? null,
    created_at: new Date().toISOString(),
  };
  const key = galleryObjectKey(photo.industry_id, photo.id);
  await storeThenWrite({ key, bytes: input.bytes, contentType: photo.content_type }, () =>
    dynamo.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName,
              Item: {
                ...keys.galleryPhoto(photo.industry_id, photo.id),
                ...keys.galleryListing(photo.industry_id, photo.id),
                ...photo,
              },
            },
          },
          {
            Put: {
              TableName: tableName,
              Item: galleryPointerItem(photo),
            },
          },
        ],
      }),
    ),
  );
  return photo;
}
