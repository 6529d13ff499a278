/**
 * Orders strings by their UTF-16 code units, as `<` does: ISO 8601 timestamps by the instant they
 * name, and ASCII strings such as e-mail addresses as DynamoDB orders a sort key. Not a language's
 * order (that is `localeCompare`, whose first call initialises ICU's collator: 6–9 ms of a cold
 * start, bench/history.md), so only for machine-made strings, never for names people read.
 */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
