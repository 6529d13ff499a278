/**
 * When a failing endpoint is tried again (docs/webhooks.md, 'Retries'): after the n-th failure in
 * a row, RETRY_DELAYS_MS[n - 1] (the last one from then on), each scaled by a random factor in
 * [0.8, 1.2) so that endpoints that failed together are not retried together. The sweeper that
 * starts due retries runs every minute, so a retry starts up to a minute after it is due.
 *
 * 1 min, 5 min, 30 min, 1 h, 2 h, 4 h, 8 h, then every 12 h: the first day holds 8 attempts
 * after the first (about 15.6 h for the first seven, 27.6 h for the eighth), and the subscription
 * is disabled at the first failure at least DISABLE_AFTER_MS after its streak began (the 10th or
 * so, about 3 days in), unless a delivery succeeds first.
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
export const RETRY_DELAYS_MS = [
  MINUTE,
  5 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  4 * HOUR,
  8 * HOUR,
  12 * HOUR,
];

/** A subscription failing for this long is disabled (reason `failing`). */
export const DISABLE_AFTER_MS = 3 * 24 * HOUR;

export const JITTER = 0.2;

/** When to try again after the `failures`-th failure in a row (1 = the first). */
export function nextAttemptAt(failures: number, now: Date, random: () => number = Math.random): Date {
  const base = RETRY_DELAYS_MS[Math.min(failures, RETRY_DELAYS_MS.length) - 1] ?? MINUTE;
  const factor = 1 - JITTER + 2 * JITTER * random();
  return new Date(now.getTime() + Math.round(base * factor));
}
