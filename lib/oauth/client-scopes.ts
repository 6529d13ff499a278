import { DEFAULT_SCOPES, parseScopes, type Scope, SUPPORTED_SCOPES } from '#lib/oauth/settings.ts';

/**
 * A client's scopes: the ones it registers (RFC 7591 `scope`, in a registration or a Client ID
 * Metadata Document), and the ones an authorization request of it may get, which never leave
 * them.
 */
const isScope = (name: string): name is Scope => (SUPPORTED_SCOPES as readonly string[]).includes(name);

/**
 * The scopes a client registers: the space-separated `scope` it sent, de-duplicated, or every
 * supported scope when it sent none. The unknown ones, when there are any, as a string.
 */
export function registeredScopes(scope: string | undefined): Scope[] | { unknown: string } {
  if (scope === undefined) return [...SUPPORTED_SCOPES];
  const names = [...new Set(scope.split(/\s+/).filter(Boolean))];
  const unknown = names.filter((name) => !isScope(name));
  return unknown.length > 0 ? { unknown: unknown.join(' ') } : (names as Scope[]);
}

/**
 * The scopes an authorization request gets. `registered` is the client's stored `scope`
 * (undefined: it registered none, so every supported scope). A scope asked for outside the
 * registered ones refuses the request (RFC 6749 §4.1.2.1 invalid_scope) rather than being quietly
 * dropped, so a client learns its registration is narrower than it thinks. No scope asked means
 * the defaults the client registered; when it registered none of them the request is refused, as
 * RFC 6749 §3.3 allows, since a token without an edits scope could do nothing.
 */
export function grantedScopes(
  asked: string | undefined,
  registered: string | undefined,
): Scope[] | { problem: string } {
  const allowedScopes: Scope[] =
    registered === undefined ? [...SUPPORTED_SCOPES] : registered.split(/\s+/).filter(isScope);
  const parsed = parseScopes(asked);
  if (typeof parsed === 'string') return { problem: `Unsupported scope: ${parsed}` };
  const askedNothing = (asked ?? '').split(/[\s+]+/).every((name) => name === '');
  if (askedNothing) {
    const defaults = DEFAULT_SCOPES.filter((scope) => allowedScopes.includes(scope));
    if (defaults.length > 0) return defaults;
    return {
      problem: `No scope was asked for and the client registered none of the defaults (${DEFAULT_SCOPES.join(' ')}): ask for one it registered (${allowedScopes.join(' ') || 'none'})`,
    };
  }
  const outside = parsed.filter((scope) => !allowedScopes.includes(scope));
  if (outside.length > 0) {
    return { problem: `The client did not register the scope ${outside.join(' ')}` };
  }
  return parsed;
}
