import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { addGalleryPhoto } from '#lib/media/gallery-writes.ts';
import { INLINE_LIMIT_BYTES, PAYLOAD_CEILING_BYTES } from '#lib/media/inline-limit.ts';
import { addPhoto, deletePhoto } from '#lib/media/photo-writes.ts';
import { scriptDocument } from '../support/document-host.ts';
import { bytesOf, MEDIA, sha256, upload } from '../support/internal-media.ts';
import { arrangeTenant } from '../support/tenants.ts';

/**
 * What the internal media API answers for a photo's bytes: inline up to the inline limit, 303 to a
 * presigned S3 GET above it (and above the payload ceiling whatever the limit), 304 before any
 * redirect, 410 for an expired external photo, 404 for a deleted one; the gallery's the same.
 */
describe('internal media: a photo’s bytes', () => {
  it('streams a photo of exactly the inline limit with its type, length and ETag; 304 for a matching If-None-Match', async () => {
    const tenant = await arrangeTenant();
    const bytes = randomBytes(INLINE_LIMIT_BYTES);
    const photo = await upload(tenant.businessId, bytes);

    const first = await bytesOf(`/photos/${photo.id}/bytes`);
    const again = await bytesOf(`/photos/${photo.id}/bytes`, { 'if-none-match': `"${sha256(bytes)}"` });

    expect(first.status).toBe(200);
    expect(sha256(first.body)).toBe(sha256(bytes));
    expect(first.headers.get('content-type')).toBe('image/png');
    expect(first.headers.get('content-length')).toBe(String(bytes.length));
    expect(first.headers.get('etag')).toBe(`"${sha256(bytes)}"`);
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('answers 303 with the ETag one byte above the inline limit; the Location gives the bytes and their type', async () => {
    const tenant = await arrangeTenant();
    const bytes = randomBytes(INLINE_LIMIT_BYTES + 1);
    const photo = await upload(tenant.businessId, bytes);

    const response = await bytesOf(`/photos/${photo.id}/bytes`);
    const location = response.headers.get('location') as string;
    const object = await fetch(location);
    const downloaded = Buffer.from(await object.arrayBuffer());

    expect(response.status).toBe(303);
    expect(response.headers.get('etag')).toBe(`"${sha256(bytes)}"`);
    expect(location).toContain('X-Amz-Expires=60');
    expect(object.status).toBe(200);
    expect(object.headers.get('content-type')).toBe('image/png');
    expect(sha256(downloaded)).toBe(sha256(bytes));
  });

  it('answers 304 to a matching If-None-Match above the inline limit, without a redirect', async () => {
    const tenant = await arrangeTenant();
    const bytes = randomBytes(INLINE_LIMIT_BYTES + 1);
    const photo = await upload(tenant.businessId, bytes);

    const response = await bytesOf(`/photos/${photo.id}/bytes`, { 'if-none-match': `"${sha256(bytes)}"` });

    expect(response.status).toBe(304);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('etag')).toBe(`"${sha256(bytes)}"`);
    expect(response.body.length).toBe(0);
  });

  it('answers 303 for a photo above the payload ceiling, which no limit can inline', async () => {
    const tenant = await arrangeTenant();
    const bytes = randomBytes(PAYLOAD_CEILING_BYTES + 100_000);
    const photo = await upload(tenant.businessId, bytes);

    const response = await bytesOf(`/photos/${photo.id}/bytes`, {
      'x-local-photo-inline-limit-bytes': String(PAYLOAD_CEILING_BYTES),
    });
    const downloaded = Buffer.from(
      await (await fetch(response.headers.get('location') as string)).arrayBuffer(),
    );

    expect(response.status).toBe(303);
    expect(sha256(downloaded)).toBe(sha256(bytes));
  });

  it('answers 410 for an expired external photo, fetches a live one through the SSRF guard, 404 for a deleted one', async () => {
    const tenant = await arrangeTenant();
    // The document host serves text; an ASCII body keeps the bytes exact.
    const image = Buffer.from(randomBytes(500).toString('hex'));
    const path = `/images/${randomUUID()}.png`;
    await scriptDocument(inject('documentHost'), path, {
      status: 200,
      headers: { 'content-type': 'image/png' },
      body: image.toString('utf8'),
    });
    const external = (url: string, expiresAt: string) =>
      addPhoto({
        businessId: tenant.businessId,
        contentType: 'image/png',
        source: 'external',
        externalUrl: url,
        externalExpiresAt: expiresAt,
      });
    const expired = await external(
      `${inject('documentHostHttps')}${path}`,
      new Date(Date.now() - 1000).toISOString(),
    );
    const live = await external(
      `${inject('documentHostHttps')}${path}`,
      new Date(Date.now() + 3_600_000).toISOString(),
    );
    const deleted = await upload(tenant.businessId);
    await deletePhoto(tenant.businessId, deleted.id);

    const gone = await bytesOf(`/photos/${expired.id}/bytes`);
    const fetched = await bytesOf(`/photos/${live.id}/bytes`);
    const missing = await bytesOf(`/photos/${deleted.id}/bytes`);

    expect(gone.status).toBe(410);
    expect(fetched.status).toBe(200);
    expect(sha256(fetched.body)).toBe(sha256(image));
    expect(missing.status).toBe(404);
    expect((await bytesOf(`/photos/${randomUUID()}/bytes`)).status).toBe(404);
  });
});

describe('internal media: the photo read beside the key check', () => {
  const dynamoCalls = (response: { headers: Headers }) =>
    Number(response.headers.get('x-local-dynamodb-calls'));

  it('answers a wrong key 401 whatever the photo, and reads nothing without the header', async () => {
    const tenant = await arrangeTenant();
    const photo = await upload(tenant.businessId);
    const gallery = await addGalleryPhoto({
      industryId: `bakery-${randomUUID().slice(0, 8)}`,
      bytes: randomBytes(1024),
      contentType: 'image/webp',
      width: 10,
      height: 10,
    });
    const wrongKey = { 'x-internal-api-key': `wrong-${randomUUID()}` };

    for (const path of [
      `/photos/${photo.id}/bytes`,
      `/photos/${randomUUID()}/bytes`,
      `/gallery/${gallery.id}/bytes`,
      `/gallery/${randomUUID()}/bytes`,
    ]) {
      const refused = await bytesOf(path, wrongKey);
      expect(refused.status, path).toBe(401);
      expect(refused.headers.get('etag'), path).toBeNull();
      expect(refused.body.toString('utf8'), path).toContain('The internal API key is not valid');

      const withoutKey = await fetch(`${inject('harness').baseUrl}${MEDIA}${path}`);
      expect(withoutKey.status, path).toBe(401);
      expect(dynamoCalls(withoutKey), path).toBe(0);
    }

    const served = await bytesOf(`/photos/${photo.id}/bytes`);
    expect(served.status).toBe(200);
    expect(dynamoCalls(served)).toBe(1);
    expect((await bytesOf(`/gallery/${gallery.id}/bytes`)).status).toBe(200);
    expect((await bytesOf(`/photos/${randomUUID()}/bytes`)).status).toBe(404);
  });
});

describe('internal media: a gallery photo’s bytes', () => {
  it('redirects a gallery photo above the inline limit (303, ETag, the bytes and type at the Location) and answers 304 before any redirect', async () => {
    const bytes = randomBytes(INLINE_LIMIT_BYTES + 1);
    const photo = await addGalleryPhoto({
      industryId: `bakery-${randomUUID().slice(0, 8)}`,
      bytes,
      contentType: 'image/webp',
    });

    const response = await bytesOf(`/gallery/${photo.id}/bytes`);
    const object = await fetch(response.headers.get('location') as string);
    const downloaded = Buffer.from(await object.arrayBuffer());
    const unchanged = await bytesOf(`/gallery/${photo.id}/bytes`, { 'if-none-match': `"${sha256(bytes)}"` });

    expect(response.status).toBe(303);
    expect(response.headers.get('etag')).toBe(`"${sha256(bytes)}"`);
    expect(object.headers.get('content-type')).toBe('image/webp');
    expect(sha256(downloaded)).toBe(sha256(bytes));
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers.get('location')).toBeNull();
  });

  it('streams a gallery photo of exactly the inline limit inline', async () => {
    const bytes = randomBytes(INLINE_LIMIT_BYTES);
    const photo = await addGalleryPhoto({
      industryId: `bakery-${randomUUID().slice(0, 8)}`,
      bytes,
      contentType: 'image/webp',
    });

    const response = await bytesOf(`/gallery/${photo.id}/bytes`);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/webp');
    expect(sha256(response.body)).toBe(sha256(bytes));
  });
});

describe('internal media: the bench’s forced answers (local harness only)', () => {
  it('runs a request with x-local-photo-inline-limit-bytes in a container with that limit, and leaves other requests alone', async () => {
    const tenant = await arrangeTenant();
    const small = randomBytes(1024);
    const large = randomBytes(INLINE_LIMIT_BYTES * 2);
    const smallPhoto = await upload(tenant.businessId, small);
    const largePhoto = await upload(tenant.businessId, large);

    const redirected = await bytesOf(`/photos/${smallPhoto.id}/bytes`, {
      'x-local-photo-inline-limit-bytes': '0',
    });
    const inlined = await bytesOf(`/photos/${largePhoto.id}/bytes`, {
      'x-local-photo-inline-limit-bytes': String(PAYLOAD_CEILING_BYTES),
    });
    const asDeployed = await bytesOf(`/photos/${largePhoto.id}/bytes`);

    expect(redirected.status).toBe(303);
    expect(inlined.status).toBe(200);
    expect(sha256(inlined.body)).toBe(sha256(large));
    expect(asDeployed.status).toBe(303);
  });
});
