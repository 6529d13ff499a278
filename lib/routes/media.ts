import type { RouteDefinition } from '#lib/http/route.ts';
import {
  BusinessMembershipData,
  BytesHeaders,
  GalleryQuery,
  InternalGalleryPhotoListData,
  InternalMediaBusinessListData,
  InternalMediaPhotoListData,
  MediaBusinessesQuery,
  MembershipPathParams,
  PhotoBytes,
  PhotoPathParams,
  PhotosQuery,
  PhotoUsagesData,
} from '#lib/media/schemas.ts';

const BASE = '/api/v1/internal/media';
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/avif'];
const common = {
  area: 'media',
  auth: 'internal',
  envelope: 'bare',
  successStatus: 200,
  permissions: { table: 'read' },
} as const;

/**
 * Internal media (spec §4.2, DESIGN §8): the separate media service enumerates businesses and
 * photos, streams bytes, checks tenant membership and photo usages, and writes derived photos
 * back, with `x-internal-api-key`. Bodies are the bare resources; errors are ErrorResponse.
 */
export const mediaRoutes = {
  listMediaBusinesses: {
    ...common,
    operationId: 'listMediaBusinesses',
    method: 'GET',
    path: `${BASE}/businesses`,
    handler: 'functions/media/list-businesses.ts',
    summary: 'Businesses with at least one live photo, for bulk backfill',
    request: { query: MediaBusinessesQuery },
    response: InternalMediaBusinessListData,
    errors: [400],
  },
  checkBusinessMembership: {
    ...common,
    operationId: 'checkBusinessMembership',
    method: 'GET',
    path: `${BASE}/businesses/{business_id}/members/{user_id}`,
    handler: 'functions/media/check-membership.ts',
    summary: 'Whether a user is a member (any role) of a business: the tenant check',
    request: { params: MembershipPathParams },
    response: BusinessMembershipData,
    errors: [400, 404],
  },
  listGalleryPhotos: {
    ...common,
    operationId: 'listGalleryPhotos',
    method: 'GET',
    path: `${BASE}/gallery`,
    handler: 'functions/media/list-gallery.ts',
    summary: 'Industry gallery photos, paged (all industries, or one)',
    request: { query: GalleryQuery },
    response: InternalGalleryPhotoListData,
    errors: [400],
  },
  getGalleryPhotoBytes: {
    ...common,
    operationId: 'getGalleryPhotoBytes',
    method: 'GET',
    path: `${BASE}/gallery/{photo_id}/bytes`,
    handler: 'functions/media/get-gallery-bytes.ts',
    summary: 'The bytes of one gallery photo (303 to a presigned URL when too large to inline)',
    request: { params: PhotoPathParams, headers: BytesHeaders },
    response: PhotoBytes,
    binaryContentTypes: IMAGE_TYPES,
    errors: [400, 404],
    permissions: { table: 'read', photos: 'read', photoKeys: 'gallery/*' },
  },
  listBusinessPhotos: {
    ...common,
    operationId: 'listBusinessPhotos',
    method: 'GET',
    path: `${BASE}/photos`,
    handler: 'functions/media/list-photos.ts',
    summary: "A business's photos as a change feed (updated_at, then id, ascending)",
    request: { query: PhotosQuery },
    response: InternalMediaPhotoListData,
    errors: [400],
  },
  getPhotoBytes: {
    ...common,
    operationId: 'getPhotoBytes',
    method: 'GET',
    path: `${BASE}/photos/{photo_id}/bytes`,
    handler: 'functions/media/get-photo-bytes.ts',
    summary: 'The bytes of one photo; 410 when its external URL expired',
    request: { params: PhotoPathParams, headers: BytesHeaders },
    response: PhotoBytes,
    binaryContentTypes: IMAGE_TYPES,
    errors: [400, 404, 410],
    permissions: { table: 'read', photos: 'read', photoKeys: 'businesses/*' },
  },
  getPhotoUsages: {
    ...common,
    operationId: 'getPhotoUsages',
    method: 'GET',
    path: `${BASE}/photos/{photo_id}/usages`,
    handler: 'functions/media/get-photo-usages.ts',
    summary: 'Every record field that references the photo (the delete-guard cross-check)',
    request: { params: PhotoPathParams },
    response: PhotoUsagesData,
    errors: [400, 404],
  },
} as const satisfies Record<string, RouteDefinition>;
