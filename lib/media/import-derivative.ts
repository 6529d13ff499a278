import { createHash, randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { imageSize } from 'image-size';
import { optionalEnv } from '#lib/config/env.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '#lib/http/errors.ts';
import { toValidationIssues } from '#lib/http/validation.ts';
import { addPhoto } from '#lib/media/photo-writes.ts';
import { ImportMeta } from '#lib/media/schemas.ts';
import { photoObjectKey } from '#lib/storage/photo-bucket.ts';

/**
 * POST …/photos/import-derivative (docs/media.md): an edited image written back as
 * a derived photo of a live source photo of the same business. The image type comes from the bytes
 * (image-size's signature detection), never from the part's declared type; width and height from
 * its header. The bytes go to S3 first, then one transaction writes the photo, its counter, the
 * idempotency key and checks the source is still live; if it fails the bytes are removed, and a
 * lost race for the same idempotency key answers with the winner's photo, so one key makes exactly
 * one photo.
 */
export const MAX_IMPORT_BYTES = 4 * 1024 * 1024;
const CONTENT_TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
};

interface FilePart {
  content?: unknown;
}

/** The internal API's callers share its keys and have no identity of their own. */
const INTERNAL_API_ACTOR = { kind: 'internal', id: 'internal-api' } as const;

export async function importDerivative(file: FilePart | undefined, metaText: string | undefined) {
  const meta = parseMeta(metaText);
  const bytes = file?.content;
  if (!Buffer.isBuffer(bytes) || bytes.length === 0) {
    throw new ValidationError('The image is missing', [
      { loc: ['body', 'file'], msg: 'Send the image as the file part', type: 'missing' },
    ]);
  }
  if (bytes.length > MAX_IMPORT_BYTES) {
    throw new PayloadTooLargeError(`The image is ${bytes.length} bytes; the limit is ${MAX_IMPORT_BYTES}`);
  }
  const detected = detectImage(bytes);
  if (!detected) throw new UnsupportedMediaTypeError('The file is not a JPEG, PNG, WebP or AVIF image');

  const idempotencyKey = meta.idempotency_key
    ? keys.importIdempotency(
        meta.business_id,
        createHash('sha256').update(meta.idempotency_key).digest('hex'),
      )
    : undefined;
  if (idempotencyKey) {
    const earlier = await earlierImport(idempotencyKey);
    if (earlier) return earlier;
  }
  const source = (
    await dynamo.send(
      new GetCommand({
        TableName: tableName,
        Key: keys.photo(meta.business_id, meta.source_asset_id),
        ConsistentRead: true,
      }),
    )
  ).Item;
  if (!source || source.deleted_at) throw sourceRefused();

  const extra = [
    {
      ConditionCheck: {
        TableName: tableName,
        Key: keys.photo(meta.business_id, meta.source_asset_id),
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deleted_at)',
      },
    },
  ];
  try {
    const photoId = randomUUID();
    const photo = await addPhoto(
      {
        businessId: meta.business_id,
        id: photoId,
        bytes,
        contentType: detected.contentType,
        width: detected.width,
        height: detected.height,
        altText: meta.alt_text ?? null,
        source: 'derived',
        derivedFrom: meta.source_asset_id,
        actor: INTERNAL_API_ACTOR,
      },
      idempotencyKey
        ? [
            ...extra,
            {
              Put: {
                TableName: tableName,
                Item: { ...idempotencyKey, photo_id: photoId, created_at: new Date().toISOString() },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ]
        : extra,
    );
    return created(photo.business_id, photo.id);
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    // Items 0–2 are the photo's own, 3 its event; 4 is the source check; 5 the idempotency key.
    const reasons = error.CancellationReasons ?? [];
    if (idempotencyKey && reasons[5]?.Code === 'ConditionalCheckFailed') {
      const earlier = await earlierImport(idempotencyKey);
      if (earlier) return earlier;
    }
    if (reasons[4]?.Code === 'ConditionalCheckFailed') throw sourceRefused();
    throw error;
  }
}

function parseMeta(text: string | undefined) {
  const invalid = (msg: string) =>
    new ValidationError(`Invalid meta: ${msg}`, [{ loc: ['body', 'meta'], msg, type: 'meta' }]);
  if (typeof text !== 'string') throw invalid('Send meta as a form field holding JSON');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalid('meta is not JSON');
  }
  const parsed = ImportMeta.safeParse(json);
  if (!parsed.success) {
    const issues = toValidationIssues('body', parsed.error).map((issue) => ({
      ...issue,
      loc: ['body', 'meta', ...issue.loc.slice(1)],
    }));
    throw new ValidationError('Invalid meta', issues);
  }
  return parsed.data;
}

function detectImage(bytes: Buffer) {
  try {
    const { type, width, height } = imageSize(bytes);
    const contentType = type ? CONTENT_TYPES[type] : undefined;
    return contentType ? { contentType, width: width ?? null, height: height ?? null } : undefined;
  } catch {
    return undefined;
  }
}

const sourceRefused = () =>
  new ValidationError('The source photo is not a live photo of this business', [
    { loc: ['body', 'meta', 'source_asset_id'], msg: 'Not a live photo of this business', type: 'reference' },
  ]);

async function earlierImport(key: { pk: string; sk: string }) {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
  );
  return Item ? created(String(key.pk).replace('BUSINESS#', ''), String(Item.photo_id)) : undefined;
}

function created(businessId: string, photoId: string) {
  const base = optionalEnv('PHOTOS_PUBLIC_BASE_URL')?.replace(/\/+$/, '');
  return {
    asset_id: photoId,
    public_url: base ? `${base}/${photoObjectKey(businessId, photoId)}` : null,
    photo_source: 'derived' as const,
  };
}
