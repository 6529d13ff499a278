/**
 * Lambda event filtering (an event source mapping's FilterCriteria), as far as the stack's
 * templates use it: a pattern is a JSON object whose keys follow the record's fields and whose
 * leaves are lists of values, of which the record's value must match one: an exact string, number,
 * boolean or null, or `{"prefix": "…"}`. Every key of a pattern must match (and), any filter of a
 * mapping may (or), and a record with no filter matching is not delivered.
 *
 * Lambda knows more operators (anything-but, numeric, exists, suffix, wildcard, …). The harness
 * refuses a pattern that uses one when it reads the template, loudly, rather than deliver records
 * AWS would not (or drop records AWS would deliver).
 */

export class UnsupportedFilterRule extends Error {
  override name = 'UnsupportedFilterRule';
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

type ValueRule = { equals: string | number | boolean | null } | { prefix: string };

/** A compiled pattern: a path of keys to the list of rules its value must satisfy one of. */
export interface FilterPattern {
  source: string;
  rules: { path: string[]; anyOf: ValueRule[] }[];
}

/** Read one filter's `Pattern` (a JSON string, as the template holds it), refusing what is not supported. */
export function compileFilterPattern(pattern: string): FilterPattern {
  let parsed: Json;
  try {
    parsed = JSON.parse(pattern);
  } catch {
    throw new UnsupportedFilterRule(`the filter pattern is not JSON: ${pattern}`);
  }
  if (!isObject(parsed)) throw new UnsupportedFilterRule(`a filter pattern is a JSON object: ${pattern}`);
  const rules: FilterPattern['rules'] = [];
  const walk = (node: { [key: string]: Json }, path: string[]) => {
    for (const [key, value] of Object.entries(node)) {
      const at = [...path, key];
      if (isObject(value)) walk(value, at);
      else if (Array.isArray(value))
        rules.push({ path: at, anyOf: value.map((rule) => valueRule(rule, at, pattern)) });
      else
        throw new UnsupportedFilterRule(
          `${at.join('.')} must be a list of values or an object, in ${pattern}`,
        );
    }
  };
  walk(parsed, []);
  if (rules.length === 0) throw new UnsupportedFilterRule(`the filter pattern matches nothing: ${pattern}`);
  return { source: pattern, rules };
}

function valueRule(rule: Json, path: string[], pattern: string): ValueRule {
  if (rule === null || typeof rule !== 'object') return { equals: rule };
  const operators = Object.keys(rule);
  const prefix = (rule as { prefix?: Json }).prefix;
  if (!Array.isArray(rule) && operators.length === 1 && typeof prefix === 'string') return { prefix };
  throw new UnsupportedFilterRule(
    `the local harness supports exact values and {"prefix": "…"} in filter patterns; ${path.join('.')} uses ${JSON.stringify(rule)} in ${pattern}`,
  );
}

/** Whether a record (the shape the function receives) matches the pattern. */
export function matchesPattern(record: unknown, pattern: FilterPattern): boolean {
  return pattern.rules.every(({ path, anyOf }) => {
    let value: unknown = record;
    for (const key of path) {
      if (!isObject(value as Json)) return false;
      value = (value as Record<string, unknown>)[key];
    }
    if (value === undefined) return false;
    // A list in the record matches when any of its elements does, as in Lambda.
    const values = Array.isArray(value) ? value : [value];
    return values.some((one) => anyOf.some((rule) => satisfies(one, rule)));
  });
}

/** Whether a record passes a mapping's filters: no filters, or any one of them matching. */
export function passesFilters(record: unknown, patterns: readonly FilterPattern[]): boolean {
  return patterns.length === 0 || patterns.some((pattern) => matchesPattern(record, pattern));
}

function satisfies(value: unknown, rule: ValueRule): boolean {
  if ('prefix' in rule) return typeof value === 'string' && value.startsWith(rule.prefix);
  return value === rule.equals;
}

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
