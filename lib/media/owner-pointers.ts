import { keys } from '#lib/db/keys.ts';
import type { GalleryPhoto } from '#lib/media/gallery-store.ts';
import type { PhotoItem } from '#lib/media/photo-store.ts';

/**
 * The owner pointers of photos and gallery photos (`PHOTO#<id>` / `OWNER`,
 * `GALLERY_PHOTO#<id>` / `OWNER`): the bytes paths name only the photo, so the pointer carries,
 * besides the owner, every field the bytes answer reads (lib/media/photo-bytes.ts), and the answer
 * needs one GetItem. Written in the same transaction as the photo item, and changed in the same
 * transaction as any of these fields on it (a deletion sets deleted_at on both).
 */
const PHOTO_BYTES_FIELDS = [
  'id',
  'business_id',
  'content_type',
  'size_bytes',
  'sha256',
  'photo_source',
  'external_url',
  'external_expires_at',
  'deleted_at',
] as const satisfies readonly (keyof PhotoItem)[];

const GALLERY_BYTES_FIELDS = [
  'id',
  'industry_id',
  'content_type',
  'size_bytes',
  'sha256',
] as const satisfies readonly (keyof GalleryPhoto)[];

/** What answering for a photo's bytes reads: the photo item or its pointer has it. */
export type PhotoBytesFields = Pick<PhotoItem, (typeof PHOTO_BYTES_FIELDS)[number]>;
export type GalleryBytesFields = Pick<GalleryPhoto, (typeof GALLERY_BYTES_FIELDS)[number]>;

/** The pointer of a new live photo: like the photo item, it has no deleted_at attribute while live. */
export function photoPointerItem(photo: PhotoItem) {
  const { deleted_at: _live, ...fields } = pick(photo, PHOTO_BYTES_FIELDS);
  return { ...keys.photoOwner(photo.id), ...fields };
}

export function galleryPointerItem(photo: GalleryPhoto) {
  return { ...keys.galleryPhotoOwner(photo.id), ...pick(photo, GALLERY_BYTES_FIELDS) };
}

/**
 * Whether a pointer carries the bytes fields. One written before pointers carried them holds only
 * the owner (and deleted_at once its photo is deleted): the photo item is read for it.
 */
export const carriesBytesFields = (pointer: Record<string, unknown>): boolean =>
  typeof pointer.content_type === 'string';

const pick = <T extends object, K extends keyof T>(value: T, fields: readonly K[]) =>
  Object.fromEntries(fields.map((field) => [field, value[field]])) as Pick<T, K>;
