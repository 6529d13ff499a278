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
export const photoBytesMask = {
  id: true,
  business_id: true,
  content_type: true,
  size_bytes: true,
  sha256: true,
  photo_source: true,
  external_url: true,
  external_expires_at: true,
  deleted_at: true,
} as const satisfies Partial<Record<keyof PhotoItem, true>>;

export const galleryBytesMask = {
  id: true,
  industry_id: true,
  content_type: true,
  size_bytes: true,
  sha256: true,
} as const satisfies Partial<Record<keyof GalleryPhoto, true>>;

/** What answering for a photo's bytes reads: the photo item or its pointer has it. */
export type PhotoBytesFields = Pick<PhotoItem, keyof typeof photoBytesMask>;
export type GalleryBytesFields = Pick<GalleryPhoto, keyof typeof galleryBytesMask>;

/** The pointer of a new live photo: like the photo item, it has no deleted_at attribute while live. */
export function photoPointerItem(photo: PhotoItem) {
  const { deleted_at: _live, ...fields } = pick(photo, photoBytesMask);
  return { ...keys.photoOwner(photo.id), ...fields };
}

export function galleryPointerItem(photo: GalleryPhoto) {
  return { ...keys.galleryPhotoOwner(photo.id), ...pick(photo, galleryBytesMask) };
}

/**
 * Whether a pointer carries the bytes fields. One written before pointers carried them holds only
 * the owner (and deleted_at once its photo is deleted): the photo item is read for it.
 */
export const carriesBytesFields = (pointer: Record<string, unknown>): boolean =>
  typeof pointer.content_type === 'string';

const pick = <T extends object, K extends keyof T>(value: T, mask: Record<K, true>) =>
  Object.fromEntries(Object.keys(mask).map((field) => [field, value[field as K]])) as Pick<T, K>;
