import { once } from '#lib/validation/lazy.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * The `Idempotency-Key` request header of the routes with `idempotent: true`. Its own module, so
 * the OpenAPI generator documents it without loading the store of answers (response-store.ts).
 * Built on first use: a request without the header is not validated against it.
 */
export const IdempotencyKeyHeaders = once(() =>
  z.object({
    'idempotency-key': z.meta(
      z.optional(
        z
          .string()
          .check(
            z.regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 visible ASCII characters, without spaces'),
          ),
      ),
      {
        description:
          'Makes a retry safe: the first successful answer to this key (per caller and operation) is ' +
          'replayed for 24 h to a request with the same body, with `idempotent-replayed: true`; another ' +
          'body answers 422; a retry while the first is still running answers 409 with `retry-after`. ' +
          'Failures are not stored, so a 503 may be retried with the same key; if that 503 hid a ' +
          'create that was applied, the retry answers with what it created instead of creating again.',
        example: 'a4c3e1c2-1b7d-4e0f-9a43-5d2f8e6b7c10',
      },
    ),
  }),
);
