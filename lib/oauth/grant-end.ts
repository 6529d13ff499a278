import { GRANT_MAX_SECONDS } from '#lib/oauth/settings.ts';

/**
 * When a grant ends however often it is refreshed (epoch seconds): its `ends_at_epoch`, or, for a
 * grant written before grants carried one, the same 90 days counted from its `created_at`. A
 * grant with neither has no known start and counts as ended.
 */
export function grantEndsAtEpoch(grant: Record<string, unknown>): number {
  if (typeof grant.ends_at_epoch === 'number') return grant.ends_at_epoch;
  const createdAt = typeof grant.created_at === 'string' ? Date.parse(grant.created_at) : Number.NaN;
  return Number.isNaN(createdAt) ? 0 : Math.floor(createdAt / 1000) + GRANT_MAX_SECONDS;
}
