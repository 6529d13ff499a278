import { describe, expect, it } from 'vitest';
import { INLINE_LIMIT_BYTES, inlineLimitFromEnv, PAYLOAD_CEILING_BYTES } from '#lib/media/inline-limit.ts';

describe('the photo inline limit', () => {
  it('stays below the payload ceiling', () => {
    expect(INLINE_LIMIT_BYTES).toBeLessThanOrEqual(PAYLOAD_CEILING_BYTES);
  });

  it('is INLINE_LIMIT_BYTES unless PHOTO_INLINE_LIMIT_BYTES names a whole number up to the ceiling', () => {
    expect(inlineLimitFromEnv(undefined)).toBe(INLINE_LIMIT_BYTES);
    expect(inlineLimitFromEnv('0')).toBe(0);
    expect(inlineLimitFromEnv(String(PAYLOAD_CEILING_BYTES))).toBe(PAYLOAD_CEILING_BYTES);
  });

  it.each([[String(PAYLOAD_CEILING_BYTES + 1)], ['-1'], ['1.5'], ['1e9'], ['lots']])(
    'refuses PHOTO_INLINE_LIMIT_BYTES=%s when the module loads',
    (value) => {
      expect(() => inlineLimitFromEnv(value)).toThrow(/PHOTO_INLINE_LIMIT_BYTES must be a whole number/);
    },
  );
});
