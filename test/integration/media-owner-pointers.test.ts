import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { addGalleryPhoto } from '#lib/media/gallery-writes.ts';
import { addPhoto, deletePhoto } from '#lib/media/photo-writes.ts';
import { arrangeTenant } from '../support/tenants.ts';

/**
 * The owner pointers carry what the bytes answer reads, so the bytes routes answer after one
 * DynamoDB call; pointers written before they carried it (only the owner) still answer, through
 * the photo item.
 */
const MEDIA = '/api/v1/internal/media';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function bytesOf(path: string) {
  const response = await fetch(`${inject('harness').baseUrl}${MEDIA}${path}`, {
    headers: { 'x-internal-api-key': inject('harness').credentials.internal_api_key },
    redirect: 'manual',
  });
  return {
    status: response.status,
    calls: Number(response.headers.get('x-local-dynamodb-calls')),
    contentType: response.headers.get('content-type'),
    body: Buffer.from(await response.arrayBuffer()),
  };
}

const itemAt = async (key: { pk: string; sk: string }) =>
  (await dynamo.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;

const upload = (businessId: string, bytes: Buffer) =>
  addPhoto({ businessId, bytes, contentType: 'image/png', width: 10, height: 10, source: 'upload' });

describe('photo owner pointers', () => {
  it('are written with the photo, carrying its bytes fields, and the bytes answer after one DynamoDB call', async () => {
    const tenant = await arrangeTenant();
    const bytes = randomBytes(3000);
    const photo = await upload(tenant.businessId, bytes);

    const pointer = await itemAt(keys.photoOwner(photo.id));
    const answer = await bytesOf(`/photos/${photo.id}/bytes`);

    expect(pointer).toEqual({
      ...keys.photoOwner(photo.id),
      id: photo.id,
      business_id: tenant.businessId,
      content_type: 'image/png',
      size_bytes: 3000,
      sha256: sha256(bytes),
      photo_source: 'upload',
      external_url: null,
      external_expires_at: null,
    });
    expect(answer.status).toBe(200);
    expect(sha256(answer.body)).toBe(sha256(bytes));
    expect(answer.contentType).toBe('image/png');
    expect(answer.calls).toBe(1);
  });

  it('carry an external photo’s URL and expiry: an expired one answers 410 after one call', async () => {
    const tenant = await arrangeTenant();
    const expiresAt = new Date(Date.now() - 1000).toISOString();
    const photo = await addPhoto({
      businessId: tenant.businessId,
      contentType: 'image/jpeg',
      source: 'external',
      externalUrl: 'https://photos.example.com/a.jpg',
      externalExpiresAt: expiresAt,
    });

    const pointer = await itemAt(keys.photoOwner(photo.id));
    const answer = await bytesOf(`/photos/${photo.id}/bytes`);

    expect(pointer).toMatchObject({
      photo_source: 'external',
      external_url: 'https://photos.example.com/a.jpg',
      external_expires_at: expiresAt,
      size_bytes: null,
      sha256: null,
    });
    expect(answer.status).toBe(410);
    expect(answer.calls).toBe(1);
  });

  it('are marked deleted in the deletion’s transaction: the bytes answer 404 after one call', async () => {
    const tenant = await arrangeTenant();
    const photo = await upload(tenant.businessId, randomBytes(100));

    await deletePhoto(tenant.businessId, photo.id);
    const deleted = await itemAt(keys.photo(tenant.businessId, photo.id));
    const pointer = await itemAt(keys.photoOwner(photo.id));
    const answer = await bytesOf(`/photos/${photo.id}/bytes`);

    expect(deleted?.deleted_at).toEqual(expect.any(String));
    expect(pointer?.deleted_at).toBe(deleted?.deleted_at);
    expect(answer.status).toBe(404);
    expect(answer.calls).toBe(1);
  });

  it('are left as they are when the deletion is refused (the photo was deleted already)', async () => {
    const tenant = await arrangeTenant();
    const photo = await upload(tenant.businessId, randomBytes(100));
    await deletePhoto(tenant.businessId, photo.id);
    const first = await itemAt(keys.photoOwner(photo.id));

    await expect(deletePhoto(tenant.businessId, photo.id)).rejects.toMatchObject({
      name: 'TransactionCanceledException',
    });

    expect(await itemAt(keys.photoOwner(photo.id))).toEqual(first);
  });

  it('written before they carried the bytes fields (only business_id) still answer, through the photo item', async () => {
    const tenant = await arrangeTenant();
    const bytes = randomBytes(2000);
    const photo = await upload(tenant.businessId, bytes);
    const gone = await upload(tenant.businessId, randomBytes(100));
    for (const { id } of [photo, gone]) {
      await dynamo.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...keys.photoOwner(id), business_id: tenant.businessId },
        }),
      );
    }

    await deletePhoto(tenant.businessId, gone.id);
    const live = await bytesOf(`/photos/${photo.id}/bytes`);
    const deleted = await bytesOf(`/photos/${gone.id}/bytes`);

    expect(live.status).toBe(200);
    expect(sha256(live.body)).toBe(sha256(bytes));
    expect(live.calls).toBe(2);
    expect(await itemAt(keys.photoOwner(gone.id))).toEqual({
      ...keys.photoOwner(gone.id),
      business_id: tenant.businessId,
      deleted_at: expect.any(String),
    });
    expect(deleted.status).toBe(404);
    expect(deleted.calls).toBe(2);
  });

  it('answer 404 for an unknown photo after one call', async () => {
    const answer = await bytesOf(`/photos/${randomUUID()}/bytes`);

    expect(answer.status).toBe(404);
    expect(answer.calls).toBe(1);
  });
});

describe('gallery photo owner pointers', () => {
  const industry = () => `bakery-${randomUUID().slice(0, 8)}`;

  it('are written with the photo, carrying its bytes fields, and the bytes answer after one DynamoDB call', async () => {
    const bytes = randomBytes(4000);
    const photo = await addGalleryPhoto({ industryId: industry(), bytes, contentType: 'image/webp' });

    const pointer = await itemAt(keys.galleryPhotoOwner(photo.id));
    const answer = await bytesOf(`/gallery/${photo.id}/bytes`);

    expect(pointer).toEqual({
      ...keys.galleryPhotoOwner(photo.id),
      id: photo.id,
      industry_id: photo.industry_id,
      content_type: 'image/webp',
      size_bytes: 4000,
      sha256: sha256(bytes),
    });
    expect(answer.status).toBe(200);
    expect(answer.contentType).toBe('image/webp');
    expect(sha256(answer.body)).toBe(sha256(bytes));
    expect(answer.calls).toBe(1);
  });

  it('written before they carried the bytes fields (only industry_id) still answer, through the photo item', async () => {
    const bytes = randomBytes(1500);
    const photo = await addGalleryPhoto({ industryId: industry(), bytes, contentType: 'image/png' });
    await dynamo.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...keys.galleryPhotoOwner(photo.id), industry_id: photo.industry_id },
      }),
    );

    const answer = await bytesOf(`/gallery/${photo.id}/bytes`);

    expect(answer.status).toBe(200);
    expect(answer.contentType).toBe('image/png');
    expect(sha256(answer.body)).toBe(sha256(bytes));
    expect(answer.calls).toBe(2);
  });
});
