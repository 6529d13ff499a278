import { ValidationError, type ValidationIssue } from '#lib/http/errors.ts';
import * as z from '#lib/validation/zod.ts';

export type RequestPart = 'path' | 'query' | 'header' | 'body';

/** What a route's schema for one request part yields (undefined where the route has none). */
export type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/** zod issues in the `{loc, msg, type}` shape of HTTPValidationError; each unknown key is its own issue. */
export function toValidationIssues(part: RequestPart, error: z.ZodError): ValidationIssue[] {
  return error.issues.flatMap((issue): ValidationIssue[] => {
    const loc = [
      part,
      ...issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment)),
    ];
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        loc: [...loc, key],
        msg: 'Unknown field',
        type: 'unrecognized_key',
      }));
    }
    return [{ loc, msg: issue.message, type: issue.code }];
  });
}

/** Parse one part of a request, throwing a 422 that names every problem. */
export function parseRequestPart<S extends z.ZodType>(
  part: RequestPart,
  schema: S,
  value: unknown,
): z.output<S> {
  const result = z.safeParse(schema, value);
  if (result.success) return result.data;
  const issues = toValidationIssues(part, result.error);
  const summary = issues
    .slice(0, 5)
    .map((issue) => `${issue.loc.join('.')}: ${issue.msg}`)
    .join('; ');
  throw new ValidationError(`Request validation failed: ${summary}`, issues);
}
