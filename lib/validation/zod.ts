/**
 * The part of zod this service uses, re-exported by name; schema modules do
 * `import * as z from '#lib/validation/zod.ts'` and write `z.string()` as usual.
 *
 * Why: zod's own `z` namespace keeps every locale and feature reachable, so each Lambda bundle
 * carried ~450 KB of zod; naming what we use lets esbuild drop the rest (~85 KB). Add a name here
 * when a schema needs it.
 */

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
  strictObject,
  string,
  union,
  unknown,
  url,
  uuid,
  ZodObject,
} from 'zod';
