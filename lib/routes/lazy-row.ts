import type { RouteDefinition } from '#lib/http/route.ts';
import { once } from '#lib/validation/lazy.ts';
import type * as zt from '#lib/validation/zod.ts';

type RowData = Omit<RouteDefinition, 'request' | 'response'>;

/**
 * A route row whose schemas are built on first read: a function's bundle holds the
 * whole route table of its area, but it reads only its own row's `request` (the pipeline) and
 * never `response` (OpenAPI reads it). So each row builds its schemas when, and only when, they
 * are asked for, once; the row is still plain data to everyone who reads it.
 */
export function lazyRow<
  R extends RowData,
  Q extends RouteDefinition['request'],
  S extends zt.ZodType | undefined,
>(
  row: R,
  schemas: { request: () => Q; response?: () => S },
): R & { readonly request: Q; readonly response: S } {
  Object.defineProperty(row, 'request', { get: once(schemas.request), enumerable: true });
  if (schemas.response)
    Object.defineProperty(row, 'response', { get: once(schemas.response), enumerable: true });
  return row as R & { readonly request: Q; readonly response: S };
}
