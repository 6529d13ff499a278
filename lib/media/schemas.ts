import * as z from '#lib/validation/zod.ts';

/** Request and response schemas of the internal media operations (spec §4.2, DESIGN §8). */

export const PageQuery = {
  cursor: z.string().min(1).max(2000).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
};

export const MediaBusinessesQuery = z.strictObject(PageQuery);
export const GalleryQuery = z.strictObject({
  industry_id: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9_-]+$/)
    .optional(),
  ...PageQuery,
});
export const PhotosQuery = z.strictObject({
  business_id: z.uuid(),
  include_deleted: z.enum(['true', 'false']).default('false'),
  updated_after: z.iso.datetime({ offset: true }).optional().meta({ description: 'RFC 3339; exclusive' }),
  ...PageQuery,
});
export const PhotoPathParams = z.strictObject({ photo_id: z.uuid() });
export const MembershipPathParams = z.strictObject({ business_id: z.uuid(), user_id: z.uuid() });
export const BytesHeaders = z.object({ 'if-none-match': z.string().max(200).optional() });

const PhotoSource = z.enum(['upload', 'external', 'derived']);

export const InternalMediaBusinessItem = z
  .object({ business_id: z.uuid(), live_photo_count: z.int() })
  .meta({ id: 'InternalMediaBusinessItem' });

export const InternalMediaBusinessListData = z
  .object({ businesses: z.array(InternalMediaBusinessItem), next_cursor: z.string().nullable() })
  .meta({ id: 'InternalMediaBusinessListData' });

export const InternalMediaPhotoItem = z
  .object({
    asset_id: z.uuid(),
    business_id: z.uuid(),
    content_type: z.string(),
    size_bytes: z.int().nullable(),
    width: z.int().nullable(),
    height: z.int().nullable(),
    sha256: z.string().nullable(),
    alt_text: z.string().nullable(),
    photo_source: PhotoSource,
    derived_from: z.uuid().nullable(),
    external_url: z.string().nullable(),
    external_expires_at: z.iso.datetime().nullable(),
    deleted_at: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'InternalMediaPhotoItem' });

export const InternalMediaPhotoListData = z
  .object({ items: z.array(InternalMediaPhotoItem), next_cursor: z.string().nullable() })
  .meta({ id: 'InternalMediaPhotoListData' });

export const InternalGalleryPhotoItem = z
  .object({
    asset_id: z.uuid(),
    industry_id: z.string(),
    content_type: z.string(),
    size_bytes: z.int(),
    width: z.int().nullable(),
    height: z.int().nullable(),
    sha256: z.string(),
    alt_text: z.string().nullable(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'InternalGalleryPhotoItem' });

export const InternalGalleryPhotoListData = z
  .object({ items: z.array(InternalGalleryPhotoItem), next_cursor: z.string().nullable() })
  .meta({ id: 'InternalGalleryPhotoListData' });

export const BusinessMembershipData = z
  .object({ business_id: z.uuid(), user_id: z.uuid(), is_member: z.boolean() })
  .meta({ id: 'BusinessMembershipData' });

export const PhotoBytes = z
  .string()
  .meta({ id: 'PhotoBytes', format: 'binary', description: 'The image bytes' });

export const PhotoUsageItem = z
  .object({
    business_id: z.uuid(),
    entity: z
      .string()
      .meta({ description: 'The kind of record (profile, service, service_item, package, team_member)' }),
    record_id: z.string(),
    fields: z.array(z.string()).meta({ description: 'The fields of that record that hold the photo' }),
  })
  .meta({ id: 'PhotoUsageItem' });

export const PhotoUsagesData = z
  .object({ asset_id: z.uuid(), in_use: z.boolean(), usages: z.array(PhotoUsageItem) })
  .meta({ id: 'PhotoUsagesData' });

/** The `meta` form field of an import, as JSON. */
export const ImportMeta = z.strictObject({
  business_id: z.uuid(),
  source_asset_id: z.uuid(),
  alt_text: z.string().max(1000).optional(),
  idempotency_key: z.string().min(1).max(200).optional(),
});

export const ImportDerivativeForm = z
  .strictObject({
    file: z.unknown().optional().meta({
      type: 'string',
      format: 'binary',
      description: 'The image (JPEG, PNG, WebP or AVIF, at most 4 MB)',
    }),
    meta: z.string().max(10_000).optional().meta({
      description: 'JSON: {business_id, source_asset_id, alt_text?, idempotency_key?}',
    }),
  })
  .meta({ id: 'ImportDerivativeForm' });

export const ImportDerivativeData = z
  .object({ asset_id: z.uuid(), public_url: z.string().nullable(), photo_source: z.literal('derived') })
  .meta({ id: 'ImportDerivativeData' });
