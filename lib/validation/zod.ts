/**
 * The part of zod this service uses, re-exported by name; schema modules do
 * `import * as z from '#lib/validation/zod.ts'` and write `z.string()` as usual.
 *
 * Why zod/mini and not zod classic: a classic schema carries every method (`.optional()`,
 * `.meta()`, `.toJSONSchema()`…), so one small schema pulls all schema types and the JSON-Schema
 * code into every bundle, and each function loads all of it at its cold start; mini is the same
 * core with functions instead of methods (`z.optional(s)`, `s.check(z.maxLength(9))`), so a bundle
 * keeps only what its schemas use. Same checks, same issues; the English messages are loaded below.
 * Why by name: zod's own `z` namespace keeps every locale and feature reachable; naming what we use
 * lets esbuild drop the rest. Add a name here when a schema needs it.
 */

import {
  config,
  globalRegistry,
  toLowerCase as toLowerCaseCheck,
  type ZodMiniType,
  uuid as zodUuid,
} from 'zod/mini';
import type { GlobalMeta } from 'zod/v4/core';
import en from 'zod/v4/locales/en.js';

export type { infer, input, output, ZodMiniType as ZodType } from 'zod/mini';
export {
  _default,
  array,
  boolean,
  coerce,
  discriminatedUnion,
  email,
  enum,
  extend,
  gte,
  int,
  iso,
  literal,
  looseObject,
  lte,
  maxLength,
  minLength,
  null,
  nullable,
  number,
  object,
  optional,
  partial,
  pick,
  pipe,
  record,
  refine,
  regex,
  regexes,
  safeParse,
  startsWith,
  strictObject,
  string,
  toJSONSchema,
  toLowerCase,
  transform,
  trim,
  union,
  unknown,
  url,
  ZodMiniObject as ZodObject,
} from 'zod/mini';
export type { $ZodError as ZodError } from 'zod/v4/core';

// zod classic loads its English messages on import; mini does not ("Invalid input" for all).
// Our 422 bodies carry zod's messages, so every function loads them (~3 KB).
config(en());

/**
 * A UUID, case-insensitive on input and lower case from the validation boundary on (RFC 9562 §4:
 * a UUID's hex digits are case-insensitive): stores, comparisons and responses only see lower case.
 */
export const uuid = (params?: Parameters<typeof zodUuid>[0]) => zodUuid(params).check(toLowerCaseCheck());

/**
 * `schema` with OpenAPI metadata (`id` makes it a named component): what classic's `.meta()` did,
 * a copy that inherits the metadata of `schema` (not its id) and adds its own to zod's global
 * registry, which the OpenAPI document reads (infra/openapi-schemas.ts).
 */
export function meta<T extends ZodMiniType>(schema: T, metadata: GlobalMeta): T {
  const copy = schema.clone() as T;
  globalRegistry.add(copy, metadata);
  return copy;
}
