import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { optionalEnv, requiredEnv } from '#lib/config/env.ts';
import { sdkClientOptions } from '#lib/config/timeouts.ts';

/**
 * The private photo bucket (docs/media.md). One client per container; S3_ENDPOINT
 * points it at s3rver locally (path-style addressing, as s3rver serves it), unset in AWS.
 */
export const photosBucket = requiredEnv('PHOTOS_BUCKET');

const endpoint = optionalEnv('S3_ENDPOINT');
export const s3 = new S3Client({
  ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
  ...sdkClientOptions('s3'),
});

export const photoObjectKey = (businessId: string, photoId: string) =>
  `businesses/${businessId}/photos/${photoId}`;
export const galleryObjectKey = (industryId: string, photoId: string) => `gallery/${industryId}/${photoId}`;

/**
 * Bytes before the item that points at them: put the object, then run `write`; when
 * the write fails, remove the object again, so no item points at missing bytes and no bytes are
 * left behind.
 */
export async function storeThenWrite<T>(
  object: { key: string; bytes: Buffer; contentType: string },
  write: () => Promise<T>,
): Promise<T> {
  await s3.send(
    new PutObjectCommand({
      Bucket: photosBucket,
      Key: object.key,
      Body: object.bytes,
      ContentType: object.contentType,
    }),
  );
  try {
    return await write();
  } catch (error) {
    await s3.send(new DeleteObjectCommand({ Bucket: photosBucket, Key: object.key }));
    throw error;
  }
}
