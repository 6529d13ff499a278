import type { Implementation } from '@modelcontextprotocol/sdk/types.js';
import { SERVED_PROTOCOL_VERSIONS } from '#lib/mcp/era.ts';
import { type CacheHint, cacheableResult } from '#lib/mcp/modern-results.ts';

/**
 * `server/discover` (MCP 2026-07-28, "Server Features" → "Discovery"), which every modern server
 * must answer: the versions we serve (both eras, newest first: a client picks one of them), what
 * the server offers, who it is and how to use it. The same for every caller, so shareable.
 */
export function discoverResult(options: {
  capabilities: Record<string, unknown>;
  serverInfo: Implementation;
  instructions: string;
  cache: CacheHint;
}) {
  return cacheableResult(
    {
      supportedVersions: [...SERVED_PROTOCOL_VERSIONS],
      capabilities: options.capabilities,
      instructions: options.instructions,
    },
    options.serverInfo,
    options.cache,
  );
}
