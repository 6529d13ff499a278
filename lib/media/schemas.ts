import * as z from '#lib/validation/zod.ts';

/** Request and response schemas of the internal media operations (docs/media.md). */

export const PageQuery = {
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(2000))),
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(500)), 100),
};

export const MediaBusinessesQuery = z.strictObject(PageQuery);
export const GalleryQuery = z.strictObject({
  industry_id: z.optional(z.string().check(z.minLength(1), z.maxLength(100), z.regex(/^[A-Za-z0-9_-]+$/))),
  ...PageQuery,
});
export const PhotosQuery = z.strictObject({
  business_id: z.uuid(),
  include_deleted: z._default(z.enum(['true', 'false']), 'false'),
  updated_after: z.meta(z.optional(z.iso.datetime({ offset: true })), { description: 'RFC 3339; exclusive' }),
  ...PageQuery,
});
export const PhotoPathParams = z.strictObject({ photo_id: z.uuid() });
export const MembershipPathParams = z.strictObject({ business_id: z.uuid(), user_id: z.uuid() });
export const BytesHeaders = z.object({ 'if-none-match': z.optional(z.string().check(z.maxLength(200))) });

const PhotoSource = z.enum(['upload', 'external', 'derived']);

export const InternalMediaBusinessItem = z.meta(
  z.object({ business_id: z.uuid(), live_photo_count: z.int() }),
  { id: 'InternalMediaBusinessItem' },
);

export const InternalMediaBusinessListData = z.meta(
  z.object({ businesses: z.array(InternalMediaBusinessItem), next_cursor: z.nullable(z.string()) }),
  { id: 'InternalMediaBusinessListData' },
);

export const InternalMediaPhotoItem = z.meta(
  z.object({
    asset_id: z.uuid(),
    business_id: z.uuid(),
    content_type: z.string(),
    size_bytes: z.nullable(z.int()),
    width: z.nullable(z.int()),
    height: z.nullable(z.int()),
    sha256: z.nullable(z.string()),
    alt_text: z.nullable(z.string()),
    photo_source: PhotoSource,
    derived_from: z.nullable(z.uuid()),
    external_url: z.nullable(z.string()),
    external_expires_at: z.nullable(z.iso.datetime()),
    deleted_at: z.nullable(z.iso.datetime()),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  }),
  { id: 'InternalMediaPhotoItem' },
);

export const InternalMediaPhotoListData = z.meta(
  z.object({ items: z.array(InternalMediaPhotoItem), next_cursor: z.nullable(z.string()) }),
  { id: 'InternalMediaPhotoListData' },
);

export const InternalGalleryPhotoItem = z.meta(
  z.object({
    asset_id: z.uuid(),
    industry_id: z.string(),
    content_type: z.string(),
    size_bytes: z.int(),
    width: z.nullable(z.int()),
    height: z.nullable(z.int()),
    sha256: z.string(),
    alt_text: z.nullable(z.string()),
    created_at: z.iso.datetime(),
  }),
  { id: 'InternalGalleryPhotoItem' },
);

export const InternalGalleryPhotoListData = z.meta(
  z.object({ items: z.array(InternalGalleryPhotoItem), next_cursor: z.nullable(z.string()) }),
  { id: 'InternalGalleryPhotoListData' },
);

export const BusinessMembershipData = z.meta(
  z.object({ business_id: z.uuid(), user_id: z.uuid(), is_member: z.boolean() }),
  { id: 'BusinessMembershipData' },
);

export const PhotoBytes = z.meta(z.string(), {
  id: 'PhotoBytes',
  format: 'binary',
  description: 'The image bytes',
});

export const PhotoUsageItem = z.meta(
  z.object({
    business_id: z.uuid(),
    entity: z.meta(z.string(), {
      description: 'The kind of record (profile, service, service_item, package, team_member)',
    }),
    record_id: z.string(),
    fields: z.meta(z.array(z.string()), { description: 'The fields of that record that hold the photo' }),
  }),
  { id: 'PhotoUsageItem' },
);

export const PhotoUsagesData = z.meta(
  z.object({ asset_id: z.uuid(), in_use: z.boolean(), usages: z.array(PhotoUsageItem) }),
  { id: 'PhotoUsagesData' },
);

/** The `meta` form field of an import, as JSON. */
export const ImportMeta = z.strictObject({
  business_id: z.uuid(),
  source_asset_id: z.uuid(),
  alt_text: z.optional(z.string().check(z.maxLength(1000))),
  idempotency_key: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
});

export const ImportDerivativeForm = z.meta(
  z.strictObject({
    file: z.meta(z.optional(z.unknown()), {
      type: 'string',
      format: 'binary',
      description: 'The image (JPEG, PNG, WebP or AVIF, at most 4 MB)',
    }),
    meta: z.meta(z.optional(z.string().check(z.maxLength(10_000))), {
      description: 'JSON: {business_id, source_asset_id, alt_text?, idempotency_key?}',
    }),
  }),
  { id: 'ImportDerivativeForm' },
);

export const ImportDerivativeData = z.meta(
  z.object({ asset_id: z.uuid(), public_url: z.nullable(z.string()), photo_source: z.literal('derived') }),
  { id: 'ImportDerivativeData' },
);
