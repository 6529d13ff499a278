import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { describe, expect, inject, it } from 'vitest';
import { createAgentKey } from '#lib/auth/agent-keys.ts';
import { addPhoto, deletePhoto } from '#lib/media/photo-writes.ts';
import { photosBucket, s3 } from '#lib/storage/photo-bucket.ts';
import { api } from '../support/api.ts';
import { avif, jpeg, png, webp } from '../support/images.ts';
import { arrangeTenant } from '../support/tenants.ts';

const MEDIA = '/api/v1/internal/media';
const key = () => inject('harness').credentials.internal_api_key;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** POST the multipart form as the media service would. */
async function importImage(file: Buffer | undefined, meta: unknown, headers: Record<string, string> = {}) {
  const form = new FormData();
  if (file) form.append('file', new Blob([file]), 'edited.bin');
  if (meta !== undefined) form.append('meta', typeof meta === 'string' ? meta : JSON.stringify(meta));
  const response = await fetch(`${inject('harness').baseUrl}${MEDIA}/photos/import-derivative`, {
    method: 'POST',
    headers: { 'x-internal-api-key': key(), ...headers },
    body: form,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function tenantWithSource() {
  const tenant = await arrangeTenant();
  const source = await addPhoto({
    businessId: tenant.businessId,
    bytes: png(8, 8),
    contentType: 'image/png',
    source: 'upload',
  });
  return { tenant, source };
}

describe('import-derivative', () => {
  it.each([
    ['JPEG', jpeg(40, 30), 'image/jpeg', 40, 30],
    ['PNG', png(4, 3), 'image/png', 4, 3],
    ['WebP', webp(64, 48), 'image/webp', 64, 48],
    ['AVIF', avif(20, 10), 'image/avif', 20, 10],
  ])(
    'stores a %s as a derived photo, listed, streamed and usable by an agent',
    async (_name, bytes, type, width, height) => {
      const { tenant, source } = await tenantWithSource();

      const imported = await importImage(bytes, {
        business_id: tenant.businessId,
        source_asset_id: source.id,
        alt_text: 'Edited',
      });

      expect(imported.status).toBe(201);
      expect(imported.body).toEqual({
        asset_id: expect.any(String),
        public_url: null,
        photo_source: 'derived',
      });
      const listed = await api('GET', `${MEDIA}/photos?business_id=${tenant.businessId}`, {
        headers: { 'x-internal-api-key': key() },
      });
      expect(listed.body.items).toContainEqual(
        expect.objectContaining({
          asset_id: imported.body.asset_id,
          content_type: type,
          width,
          height,
          size_bytes: bytes.length,
          sha256: sha256(bytes),
          photo_source: 'derived',
          derived_from: source.id,
          alt_text: 'Edited',
        }),
      );
      const streamed = await fetch(
        `${inject('harness').baseUrl}${MEDIA}/photos/${imported.body.asset_id}/bytes`,
        {
          headers: { 'x-internal-api-key': key() },
        },
      );
      expect(sha256(Buffer.from(await streamed.arrayBuffer()))).toBe(sha256(bytes));
      const { key: agentKey } = await createAgentKey({
        name: 'import',
        businesses: [tenant.businessId],
        scopes: ['read', 'write'],
      });
      const service = await api('POST', `/api/v1/agent/businesses/${tenant.businessId}/services`, {
        token: agentKey,
        json: { name: 'Cakes', photo_id: imported.body.asset_id },
      });
      expect(service.status).toBe(201);
    },
  );

  it('returns the first photo for a repeated idempotency key, also under 10 concurrent identical requests', async () => {
    const { tenant, source } = await tenantWithSource();
    const meta = {
      business_id: tenant.businessId,
      source_asset_id: source.id,
      idempotency_key: `k-${randomUUID()}`,
    };
    const bytes = png(5, 5);

    const outcomes = await Promise.all(Array.from({ length: 10 }, () => importImage(bytes, meta)));
    const again = await importImage(bytes, meta);

    expect(outcomes.map((o) => o.status)).toEqual(Array(10).fill(201));
    expect(new Set([...outcomes, again].map((o) => o.body.asset_id)).size).toBe(1);
    const listed = await api('GET', `${MEDIA}/photos?business_id=${tenant.businessId}`, {
      headers: { 'x-internal-api-key': key() },
    });
    expect(
      listed.body.items.filter((i: { photo_source: string }) => i.photo_source === 'derived'),
    ).toHaveLength(1);
    // The nine that lost the race removed their bytes: the source's and the one photo's remain.
    const objects = await s3.send(
      new ListObjectsV2Command({ Bucket: photosBucket, Prefix: `businesses/${tenant.businessId}/photos/` }),
    );
    expect(objects.Contents?.map((object) => object.Key).sort()).toEqual(
      [source.id, outcomes[0]?.body.asset_id]
        .map((id) => `businesses/${tenant.businessId}/photos/${id}`)
        .sort(),
    );
  });

  it.each([
    ['a file over 4 MB', () => Buffer.concat([png(2, 2), randomBytes(4 * 1024 * 1024)]), undefined, 413],
    ['a file that is no image', () => Buffer.from('%PDF-1.7 not an image'), undefined, 415],
    [
      'an SVG (not one of the four types)',
      () => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'),
      undefined,
      415,
    ],
    ['no file part', () => undefined, undefined, 422],
    ['meta that is not JSON', () => png(2, 2), '{nope', 422],
    ['meta with an unknown field', () => png(2, 2), 'EXTRA', 422],
    ['an unknown source', () => png(2, 2), 'UNKNOWN', 422],
    ['a deleted source', () => png(2, 2), 'DELETED', 422],
    ['another business’s source', () => png(2, 2), 'FOREIGN', 422],
  ])('refuses %s', async (_name, file, metaCase, status) => {
    const { tenant, source } = await tenantWithSource();
    const other = await tenantWithSource();
    const deleted = await addPhoto({
      businessId: tenant.businessId,
      bytes: png(2, 2),
      contentType: 'image/png',
      source: 'upload',
    });
    await deletePhoto(tenant.businessId, deleted.id);
    const base = { business_id: tenant.businessId, source_asset_id: source.id };
    const metas: Record<string, unknown> = {
      EXTRA: { ...base, colour: 'blue' },
      UNKNOWN: { ...base, source_asset_id: randomUUID() },
      DELETED: { ...base, source_asset_id: deleted.id },
      FOREIGN: { ...base, source_asset_id: other.source.id },
    };
    const meta = metaCase === undefined ? base : (metas[metaCase] ?? metaCase);

    const response = await importImage(file(), meta);

    expect(response.status).toBe(status);
    expect(response.body.success).toBe(false);
    const listed = await api('GET', `${MEDIA}/photos?business_id=${tenant.businessId}&include_deleted=true`, {
      headers: { 'x-internal-api-key': key() },
    });
    expect(listed.body.items.filter((i: { photo_source: string }) => i.photo_source === 'derived')).toEqual(
      [],
    );
  });

  it('refuses a JSON body (415) and answers 401 without the internal key', async () => {
    const json = await api('POST', `${MEDIA}/photos/import-derivative`, {
      headers: { 'x-internal-api-key': key() },
      json: { file: 'x', meta: '{}' },
    });
    const anonymous = await api('POST', `${MEDIA}/photos/import-derivative`, { json: {} });

    expect(json.status).toBe(415);
    expect(anonymous.status).toBe(401);
  });
});
