import type { AnonymousPrincipal, Authenticator } from '#lib/auth/principal.ts';

/**
 * No credential: the authorization server's own endpoints (discovery, registration, authorize,
 * token, revoke), which clients call before they have anything to present. The caller's source
 * address is kept for rate limits.
 */
export const publicAccess: Authenticator<AnonymousPrincipal> = {
  kind: 'none',
  prepare() {},
  async authenticate(_headers, request) {
    return { kind: 'anonymous', sourceIp: request?.sourceIp ?? 'unknown' };
  },
};
