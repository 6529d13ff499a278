import { optionalEnv } from '#lib/config/env.ts';

/**
 * The most binary a Lambda answer can carry: base64 turns it into ~5.9 MB of the 6 MB payload, and
 * HTTP APIs cannot stream. Nothing larger can come inline, whatever the inline limit says.
 */
export const PAYLOAD_CEILING_BYTES = 4_400_000;

/**
 * Above this a stored photo answers 303 instead of its bytes. Inline, every byte is read from S3 by
 * the function, base64-encoded and decoded again by API Gateway, which costs time and Lambda
 * duration per byte; a 303 costs the client one more round trip and the function nothing per byte.
 * 1 MB is about where the 303 becomes the faster answer for a client a continental round trip
 * (30 ms) from the region (docs/decisions.md, 'Photo bytes: inline up to 1 MB, 303 above').
 */
export const INLINE_LIMIT_BYTES = 1024 * 1024;

/**
 * The limit in force: INLINE_LIMIT_BYTES unless PHOTO_INLINE_LIMIT_BYTES says otherwise (the local
 * bench sets it to measure both answers at every size; deployments never do), never above the
 * payload ceiling.
 */
export const inlineLimitBytes = inlineLimitFromEnv(optionalEnv('PHOTO_INLINE_LIMIT_BYTES'));

export function inlineLimitFromEnv(value: string | undefined): number {
  if (value === undefined) return INLINE_LIMIT_BYTES;
  const bytes = Number(value);
  if (!Number.isInteger(bytes) || bytes < 0 || bytes > PAYLOAD_CEILING_BYTES) {
    throw new Error(`PHOTO_INLINE_LIMIT_BYTES must be a whole number from 0 to ${PAYLOAD_CEILING_BYTES}`);
  }
  return bytes;
}
