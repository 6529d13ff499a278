import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { addGalleryPhoto } from '#lib/media/gallery-writes.ts';
import { INLINE_LIMIT_BYTES, PAYLOAD_CEILING_BYTES } from '#lib/media/inline-limit.ts';
import { addPhoto, deletePhoto } from '#lib/media/photo-writes.ts';
import { api } from '../support/api.ts';
import { scriptDocument } from '../support/document-host.ts';
import { arrangeTenant } from '../support/tenants.ts';

const MEDIA = '/api/v1/internal/media';
const key = () => inject('harness').credentials.internal_api_key;
const media = (path: string, headers: Record<string, string> = {}) =>
  api('GET', `${MEDIA}${path}`, { headers: { 'x-internal-api-key': key(), ...headers } });
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Fetch bytes as a client would (api() reads text). */
async function bytesOf(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${inject('harness').baseUrl}${MEDIA}${path}`, {
    headers: { 'x-internal-api-key': key(), ...headers },
    redirect: 'manual',
  });
  return {
    status: response.status,
    headers: response.headers,
    body: Buffer.from(await response.arrayBuffer()),
  };
}

const upload = (businessId: string, bytes = randomBytes(2048)) =>
  addPhoto({ businessId, bytes, contentType: 'image/png', width: 10, height: 10, source: 'upload' });

describe('internal media: authentication', () => {
  it.each([
    ['/businesses'],
    [`/businesses/${randomUUID()}/members/${randomUUID()}`],
    ['/gallery'],
    [`/gallery/${randomUUID()}/bytes`],
    [`/photos?business_id=${randomUUID()}`],
    [`/photos/${randomUUID()}/bytes`],
  ])(
    'GET %s answers 401 without the internal key, with a wrong one, or with other credentials',
    async (path) => {
      const tenant = await arrangeTenant();
      const attempts: Record<string, string>[] = [
        {},
        { 'x-internal-api-key': 'ik_wrong' },
        { authorization: `Bearer ${tenant.tokens.owner}` },
        { authorization: `Bearer ${inject('harness').credentials.agent_key}` },
      ];
      for (const headers of attempts) {
        const response = await api('GET', `${MEDIA}${path}`, { headers });
        expect(response.status, JSON.stringify(headers)).toBe(401);
        expect(response.body.error.code).toBe('UNAUTHORIZED');
      }
    },
  );
});

describe('internal media: the demo data', () => {
  it('seeds the first demo business with photos of each kind, a profile logo and a gallery', async () => {
    const business = inject('harness').credentials.businesses[0]?.id as string;

    const photos = (await media(`/photos?business_id=${business}&include_deleted=true`)).body.items as {
      asset_id: string;
      content_type: string;
      photo_source: string;
      deleted_at: string | null;
    }[];
    const logo = photos.find(
      (photo) => photo.content_type === 'image/jpeg' && photo.photo_source === 'upload',
    );
    const usages = await media(`/photos/${logo?.asset_id}/usages`);

    expect(photos.map((photo) => photo.content_type).sort()).toEqual(
      expect.arrayContaining(['image/jpeg', 'image/png', 'image/webp']),
    );
    expect(photos.some((photo) => photo.deleted_at !== null)).toBe(true);
    expect(photos.some((photo) => photo.photo_source === 'external')).toBe(true);
    expect(usages.body.usages).toContainEqual(
      expect.objectContaining({ entity: 'profile', record_id: 'profile', fields: ['logo_photo_id'] }),
    );
    expect((await media('/gallery?industry_id=bakery')).body.items.length).toBeGreaterThanOrEqual(2);
  });
});

describe('internal media: key rotation', () => {
  it('accepts the previous key as well as the current one on every operation', async () => {
    const tenant = await arrangeTenant();
    const photo = await upload(tenant.businessId);
    const [current, previous] = inject('harness').env.INTERNAL_API_KEYS?.split(',') ?? [];
    expect(previous).toBeDefined();

    for (const rotated of [current, previous]) {
      const headers = { 'x-internal-api-key': rotated as string };
      for (const path of [
        '/businesses',
        `/businesses/${tenant.businessId}/members/${randomUUID()}`,
        '/gallery',
        `/photos?business_id=${tenant.businessId}`,
        `/photos/${photo.id}/bytes`,
        `/photos/${photo.id}/usages`,
      ]) {
        expect((await api('GET', `${MEDIA}${path}`, { headers })).status, path).toBe(200);
      }
    }
  });
});

describe('internal media: photos', () => {
  it('lists a business’s photos as a change feed, page by page, with and without deleted ones', async () => {
    const tenant = await arrangeTenant();
    const photos = [];
    for (let i = 0; i < 5; i++) photos.push(await upload(tenant.businessId));
    await deletePhoto(tenant.businessId, photos[1]?.id as string);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await media(
        `/photos?business_id=${tenant.businessId}&limit=2&include_deleted=true${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      seen.push(...page.body.items.map((item: { asset_id: string }) => item.asset_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    const live = await media(`/photos?business_id=${tenant.businessId}&limit=500`);

    // The deleted photo moved to the end of the feed (its updated_at changed).
    expect(seen).toEqual([photos[0], photos[2], photos[3], photos[4], photos[1]].map((p) => p?.id));
    expect(live.body.items.map((item: { asset_id: string }) => item.asset_id)).toEqual(
      [photos[0], photos[2], photos[3], photos[4]].map((p) => p?.id),
    );
    expect(live.body.items[0]).toMatchObject({
      business_id: tenant.businessId,
      content_type: 'image/png',
      size_bytes: 2048,
      photo_source: 'upload',
      deleted_at: null,
    });
  });

  it('resumes a feed after updated_after (exclusive), so a later change shows up on a later read', async () => {
    const tenant = await arrangeTenant();
    const first = await upload(tenant.businessId);
    const second = await upload(tenant.businessId);

    const after = await media(
      `/photos?business_id=${tenant.businessId}&updated_after=${encodeURIComponent(first.updated_at)}`,
    );
    await deletePhoto(tenant.businessId, first.id);
    const later = await media(
      `/photos?business_id=${tenant.businessId}&include_deleted=true&updated_after=${encodeURIComponent(second.updated_at)}`,
    );

    expect(after.body.items.map((item: { asset_id: string }) => item.asset_id)).toEqual([second.id]);
    expect(later.body.items.map((item: { asset_id: string }) => item.asset_id)).toEqual([first.id]);
  });

  it.each([
    ['limit=0', 'limit=0'],
    ['limit=501', 'limit=501'],
    ['a garbage cursor', 'cursor=garbage'],
    ['a non-RFC 3339 updated_after', 'updated_after=yesterday'],
    ['an unknown parameter', 'sort=desc'],
  ])('answers 422 to %s', async (_name, query) => {
    const tenant = await arrangeTenant();

    const response = await media(`/photos?business_id=${tenant.businessId}&${query}`);

    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('refuses a cursor from another business, another filter, or with a forged key (422, never a read)', async () => {
    const tenant = await arrangeTenant();
    const other = await arrangeTenant();
    for (let i = 0; i < 3; i++) await upload(tenant.businessId);
    const page = await media(`/photos?business_id=${tenant.businessId}&limit=1`);
    const cursor = page.body.next_cursor as string;
    const [payload, mac] = cursor.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    // A changed key keeps the mac of the original: the cursor no longer verifies.
    const forged = (k: Record<string, string>) =>
      `${Buffer.from(JSON.stringify(k)).toString('base64url')}.${mac}`;

    const attempts = [
      `/photos?business_id=${other.businessId}&cursor=${cursor}`,
      `/photos?business_id=${tenant.businessId}&include_deleted=true&cursor=${cursor}`,
      `/photos?business_id=${tenant.businessId}&cursor=${forged({ ...decoded, sk: '' })}`,
      `/photos?business_id=${tenant.businessId}&cursor=${forged({ ...decoded, gsi1pk: `BUSINESS#${other.businessId}#PHOTOS` })}`,
      `/businesses?cursor=${cursor}`,
    ];
    for (const path of attempts) expect((await media(path)).status, path).toBe(422);
    expect((await media(`/photos?business_id=${tenant.businessId}&limit=1&cursor=${cursor}`)).status).toBe(
      200,
    );
  });

  it('lists businesses with live photos, and drops one when its last photo goes', async () => {
    const tenant = await arrangeTenant();
    const photo = await upload(tenant.businessId);
    const listed = async () => {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await media(`/businesses?limit=50${cursor ? `&cursor=${cursor}` : ''}`);
        ids.push(...page.body.businesses.map((b: { business_id: string }) => b.business_id));
        cursor = page.body.next_cursor;
      } while (cursor);
      return ids;
    };

    expect(await listed()).toContain(tenant.businessId);
    await deletePhoto(tenant.businessId, photo.id);
    expect(await listed()).not.toContain(tenant.businessId);
  });

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

describe('internal media: gallery and membership', () => {
  it('lists gallery photos of one industry or all, and streams their bytes', async () => {
    const industry = `bakery-${randomUUID().slice(0, 8)}`;
    const bytes = randomBytes(5000);
    const photo = await addGalleryPhoto({
      industryId: industry,
      bytes,
      contentType: 'image/webp',
      width: 4,
      height: 3,
    });
    await addGalleryPhoto({ industryId: industry, bytes: randomBytes(10), contentType: 'image/png' });

    const one = await media(`/gallery?industry_id=${industry}&limit=1`);
    const two = await media(`/gallery?industry_id=${industry}&limit=1&cursor=${one.body.next_cursor}`);
    const streamed = await bytesOf(`/gallery/${photo.id}/bytes`);

    expect([...one.body.items, ...two.body.items].map((i: { industry_id: string }) => i.industry_id)).toEqual(
      [industry, industry],
    );
    expect((await media('/gallery?limit=500')).body.items.length).toBeGreaterThanOrEqual(2);
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('content-type')).toBe('image/webp');
    expect(sha256(streamed.body)).toBe(sha256(bytes));
    expect((await bytesOf(`/gallery/${randomUUID()}/bytes`)).status).toBe(404);
  });

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

  it('tells whether a user is a member of a business (any role); an unknown business is a 404', async () => {
    const tenant = await arrangeTenant();
    const { localUserId } = await import('../../infra/local/dev-issuer.ts');
    const viewer = localUserId(tenant.emails.viewer);

    const member = await media(`/businesses/${tenant.businessId}/members/${viewer}`);
    const stranger = await media(`/businesses/${tenant.businessId}/members/${randomUUID()}`);
    const unknown = await media(`/businesses/${randomUUID()}/members/${viewer}`);
    const malformed = await media(`/businesses/nope/members/${viewer}`);

    expect(member.body).toEqual({ business_id: tenant.businessId, user_id: viewer, is_member: true });
    expect(stranger.body.is_member).toBe(false);
    expect(unknown.status).toBe(404);
    expect(malformed.status).toBe(422);
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
