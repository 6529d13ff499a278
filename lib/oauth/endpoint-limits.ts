import { admitInWindow, type FixedWindowLimit } from '#lib/rate/fixed-window.ts';
import { sourceKey } from '#lib/rate/source-key.ts';

/**
 * Per-caller limits of the token and revocation endpoints (docs/decisions.md, 'OAuth for
 * assistants'). Their route throttle is one bucket for every caller, sized for all connected
 * assistants at once, so one caller is held back here instead, in two counters per endpoint:
 *
 * - per source address (an IPv6 source by its /64), every well-formed request, before it is judged
 *   (the token endpoint sends the count beside its first read): a flood of junk from one place
 *   costs one UpdateItem a request and stops at the limit;
 * - per client, only once the refresh token, or the token to revoke, was found to be that
 *   client's: naming a client_id spends nothing of its budget, only a holder of its tokens can. A
 *   code exchange is not counted: a code exists only after a person approved it.
 *
 * Past either, the answer is a 429 `temporarily_unavailable` with `retry-after`.
 */
export const ENDPOINT_LIMITS = {
  token: {
    // Far above one device's or office's assistants (each refreshes every 15 minutes): 300 a
    // minute is 4,500 connected assistants behind one address.
    source: { name: 'token-source', limit: 300, windowSeconds: 60 },
    // Refreshes: one client_id may be every user of a hosted assistant (a metadata document):
    // 18,000 connected assistants of one client.
    client: { name: 'token-client', limit: 1200, windowSeconds: 60 },
  },
  revoke: {
    // An assistant revokes when a person disconnects it: rare, so lower.
    source: { name: 'revoke-source', limit: 60, windowSeconds: 60 },
    client: { name: 'revoke-client', limit: 120, windowSeconds: 60 },
  },
} as const satisfies Record<string, Record<'source' | 'client', FixedWindowLimit>>;

export type LimitedEndpoint = keyof typeof ENDPOINT_LIMITS;

/** Counts a request from `sourceIp`; refuses it with a 429 past the endpoint's source limit. */
export function admitSource(endpoint: LimitedEndpoint, sourceIp: string): Promise<void> {
  return admitInWindow(
    ENDPOINT_LIMITS[endpoint].source,
    sourceKey(sourceIp),
    'Too many requests from this address; retry shortly',
  );
}

/** Counts a request that proved it holds the client's token; refuses it with a 429 past the client limit. */
export function admitClient(endpoint: LimitedEndpoint, clientId: string): Promise<void> {
  return admitInWindow(
    ENDPOINT_LIMITS[endpoint].client,
    clientId,
    'Too many requests for this client; retry shortly',
  );
}
