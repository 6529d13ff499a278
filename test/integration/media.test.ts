import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { addGalleryPhoto } from '#lib/media/gallery-writes.ts';
import { deletePhoto } from '#lib/media/photo-writes.ts';
import { api } from '../support/api.ts';
import { bytesOf, MEDIA, media, sha256, upload } from '../support/internal-media.ts';
import { arrangeTenant } from '../support/tenants.ts';

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
