import { createHash } from 'node:crypto';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { GoneError, NotFoundError, ServiceUnavailableError } from '#lib/http/errors.ts';
import type { HandlerOutput } from '#lib/http/pipeline.ts';
import { inlineLimitBytes, PAYLOAD_CEILING_BYTES } from '#lib/media/inline-limit.ts';
import type { GalleryBytesFields, PhotoBytesFields } from '#lib/media/owner-pointers.ts';
import { SafeFetchError, safeFetch } from '#lib/net/safe-fetch.ts';
import { galleryObjectKey, photoObjectKey, photosBucket, s3 } from '#lib/storage/photo-bucket.ts';

const PRESIGNED_SECONDS = 60;
const EXTERNAL_TIMEOUT_MS = 5_000;

interface StoredObject {
  objectKey: string;
  contentType: string;
  sha256: string;
  sizeBytes: number;
}

/**
 * Photo bytes as HTTP responses (docs/media.md): the stored content type, `ETag` =
 * the sha256, `If-None-Match` → 304 (before any redirect). A stored photo up to the inline limit
 * comes in the answer; a larger one answers 303 to a presigned S3 GET valid 60 s. External photos:
 * expired → 410; live ones are fetched through the SSRF guard and always come inline, up to the
 * payload ceiling (there is no S3 object to redirect to).
 */
export async function photoBytes(
  photo: PhotoBytesFields,
  ifNoneMatch: string | undefined,
): Promise<HandlerOutput> {
  if (photo.deleted_at) throw new NotFoundError(`Photo ${photo.id} was deleted`);
  if (photo.photo_source === 'external' && photo.external_url) {
    if (photo.external_expires_at && Date.parse(photo.external_expires_at) <= Date.now()) {
      throw new GoneError(`The external URL of photo ${photo.id} expired at ${photo.external_expires_at}`);
    }
    return externalBytes(photo, ifNoneMatch);
  }
  if (!photo.sha256 || photo.size_bytes === null) throw new NotFoundError(`Photo ${photo.id} has no bytes`);
  return storedBytes(
    {
      objectKey: photoObjectKey(photo.business_id, photo.id),
      contentType: photo.content_type,
      sha256: photo.sha256,
      sizeBytes: photo.size_bytes,
    },
    ifNoneMatch,
  );
}

export function galleryBytes(
  photo: GalleryBytesFields,
  ifNoneMatch: string | undefined,
): Promise<HandlerOutput> {
  return storedBytes(
    {
      objectKey: galleryObjectKey(photo.industry_id, photo.id),
      contentType: photo.content_type,
      sha256: photo.sha256,
      sizeBytes: photo.size_bytes,
    },
    ifNoneMatch,
  );
}

async function storedBytes(object: StoredObject, ifNoneMatch: string | undefined): Promise<HandlerOutput> {
  const etag = `"${object.sha256}"`;
  if (matchesEtag(ifNoneMatch, etag)) return { raw: { statusCode: 304 }, headers: { etag } };
  const command = new GetObjectCommand({ Bucket: photosBucket, Key: object.objectKey });
  if (object.sizeBytes > inlineLimitBytes) {
    const location = await getSignedUrl(s3, command, { expiresIn: PRESIGNED_SECONDS });
    return { raw: { statusCode: 303 }, headers: { location, etag } };
  }
  const result = await s3.send(command);
  const bytes = Buffer.from((await result.Body?.transformToByteArray()) ?? []);
  return binary(bytes, object.contentType, etag);
}

async function externalBytes(
  photo: PhotoBytesFields,
  ifNoneMatch: string | undefined,
): Promise<HandlerOutput> {
  let fetched: Awaited<ReturnType<typeof safeFetch>>;
  try {
    fetched = await safeFetch(String(photo.external_url), {
      maxBytes: PAYLOAD_CEILING_BYTES,
      timeoutMs: EXTERNAL_TIMEOUT_MS,
      accept: 'image/*',
    });
  } catch (error) {
    if (error instanceof SafeFetchError) {
      throw new ServiceUnavailableError(
        `The external photo could not be fetched (${error.reason})`,
        'external_photo',
        30,
      );
    }
    throw error;
  }
  if (fetched.status === 404 || fetched.status === 410) throw new GoneError('The external photo is gone');
  if (fetched.status !== 200) {
    throw new ServiceUnavailableError(
      `The external photo's host answered ${fetched.status}`,
      'external_photo',
      30,
    );
  }
  const etag = `"${createHash('sha256').update(fetched.body).digest('hex')}"`;
  if (matchesEtag(ifNoneMatch, etag)) return { raw: { statusCode: 304 }, headers: { etag } };
  return binary(fetched.body, photo.content_type, etag);
}

function binary(bytes: Buffer, contentType: string, etag: string): HandlerOutput {
  return {
    raw: { statusCode: 200, body: bytes.toString('base64'), isBase64Encoded: true },
    headers: { 'content-type': contentType, 'content-length': String(bytes.length), etag },
  };
}

/** RFC 9110 §13.1.2: `*`, or any listed tag, weak or strong, equal to ours. */
function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
