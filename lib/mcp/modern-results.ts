import type { Implementation, Result } from '@modelcontextprotocol/sdk/types.js';

/**
 * What every modern result carries (MCP 2026-07-28, "Base Protocol" → "Result Responses", and
 * "Caching"): `resultType` ("complete": we never ask the client for more input), the server's
 * name and version in `_meta`, and on the results of discovery and lists a freshness hint
 * (`ttlMs`) and who may share a cached copy (`cacheScope`). Legacy results carry none of these.
 */
export const SERVER_INFO_META = 'io.modelcontextprotocol/serverInfo';

export type CacheScope = 'public' | 'private';

export interface CacheHint {
  ttlMs: number;
  cacheScope: CacheScope;
}

/** A final result, naming the server that produced it. */
export function completeResult<T extends Result>(result: T, serverInfo: Implementation) {
  return {
    ...result,
    resultType: 'complete' as const,
    _meta: { ...result._meta, [SERVER_INFO_META]: serverInfo },
  };
}

/** A final result a client may cache, for how long and with whom as `hint` says. */
export function cacheableResult<T extends Result>(result: T, serverInfo: Implementation, hint: CacheHint) {
  if (!Number.isSafeInteger(hint.ttlMs) || hint.ttlMs < 0)
    throw new RangeError('ttlMs must be an integer >= 0');
  return { ...completeResult(result, serverInfo), ttlMs: hint.ttlMs, cacheScope: hint.cacheScope };
}
