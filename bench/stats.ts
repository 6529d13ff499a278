/** Order statistics for the bench: medians and spreads, never a single sample. */

/** The q-quantile (0..1) by linear interpolation between the nearest ranks. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return (
    (sorted[low] ?? Number.NaN) + ((sorted[high] ?? Number.NaN) - (sorted[low] ?? Number.NaN)) * (at - low)
  );
}

export const median = (values: number[]) => quantile(values, 0.5);

/** The arithmetic mean (NaN for no values). */
export const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

export interface Spread {
  median: number;
  p25: number;
  p75: number;
  min: number;
  max: number;
  n: number;
}

export function spread(values: number[]): Spread {
  return {
    median: median(values),
    p25: quantile(values, 0.25),
    p75: quantile(values, 0.75),
    min: Math.min(...values),
    max: Math.max(...values),
    n: values.length,
  };
}

/** `median (p25–p75)` with the given number of decimals. */
export function formatSpread(s: Spread, digits = 0): string {
  return `${s.median.toFixed(digits)} (${s.p25.toFixed(digits)}–${s.p75.toFixed(digits)})`;
}

/** A target's verdict as the bench prints it. */
export const met = (ok: boolean) => (ok ? 'met' : '**not met**');
