/**
 * Seconds an HTTP response may be reused for, from its Cache-Control max-age, else its Expires;
 * 0 when it says no-store, no-cache or private, or says nothing. Callers cap it to their own limit.
 */
export function cacheLifetime(headers: Record<string, string>, now = Date.now()): number {
  const cacheControl = (headers['cache-control'] ?? '').toLowerCase();
  if (/\b(no-store|no-cache|private)\b/.test(cacheControl)) return 0;
  const maxAge = /\bmax-age=(\d+)/.exec(cacheControl)?.[1];
  let seconds = 0;
  if (maxAge !== undefined) seconds = Number(maxAge);
  else if (headers.expires) seconds = Math.floor((Date.parse(headers.expires) - now) / 1000);
  return Number.isFinite(seconds) ? Math.max(seconds, 0) : 0;
}
