/**
 * The part of zod this service uses, re-exported by name; schema modules do
 * `import * as z from '#lib/validation/zod.ts'` and write `z.string()` as usual.
 *
 * Why: zod's own `z` namespace keeps every locale and feature reachable, so each Lambda bundle
 * carried ~450 KB of zod; naming what we use lets esbuild drop the rest (~85 KB). Add a name here
 * when a schema needs it.
 */

import { uuid as zodUuid } from 'zod';

export type { infer, input, output, ZodError, ZodType } from 'zod';
export {
  array,
  boolean,
  coerce,
  email,
  enum,
  int,
  iso,
  literal,
  null,
  number,
  object,
  record,
  regexes,
  strictObject,
  string,
  toJSONSchema,
  union,
  unknown,
  url,
  ZodObject,
} from 'zod';

/**
 * A UUID, case-insensitive on input and lower case from the validation boundary on (RFC 9562 §4:
 * a UUID's hex digits are case-insensitive): stores, comparisons and responses only see lower case.
 */
export const uuid = (params?: Parameters<typeof zodUuid>[0]) => zodUuid(params).toLowerCase();
