/**
 * Redirect URI rules (docs/oauth.md, 'Clients'; RFC 8252 for native and loopback clients).
 * Pure functions: the registration, the client metadata documents and /oauth/authorize all judge
 * URIs here.
 */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
const REFUSED_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:']);
/** A private-use scheme in reverse-domain form (RFC 8252 §7.1), e.g. com.example.app: */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/;

export const isLoopbackRedirect = (url: URL) => url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);

/**
 * Whether a URI carries userinfo, judged on the string as sent: `new URL('http://@host/')` has an
 * empty username, so only the raw authority shows the `@`.
 */
export function hasUserinfo(uri: string): boolean {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(uri)?.[1] ?? '';
  const url = URL.parse(uri);
  return authority.includes('@') || Boolean(url?.username || url?.password);
}

/**
 * Whether a URI has a fragment, judged on the string as sent: `new URL('https://a.example/cb#').hash`
 * is '' although the URI ends in an empty fragment (RFC 6749 §3.1.2 forbids any).
 */
export const hasFragment = (uri: string): boolean => uri.includes('#');

/** Why a redirect URI cannot be registered, or undefined when it can. */
export function redirectUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `'${uri}' is not an absolute URI`;
  }
  if (hasFragment(uri)) return 'A redirect URI must not contain a fragment, not even an empty one (#)';
  if (REFUSED_SCHEMES.has(url.protocol)) return `The ${url.protocol} scheme is not allowed for redirect URIs`;
  if (hasUserinfo(uri)) return 'No credentials (user name, password or @) in redirect URIs';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') {
    return isLoopbackRedirect(url)
      ? undefined
      : 'http redirect URIs must point at the loopback interface (127.0.0.1, [::1] or localhost)';
  }
  if (PRIVATE_USE_SCHEME.test(url.protocol)) return undefined;
  return `The ${url.protocol} scheme is not allowed: use https, loopback http, or a private-use scheme in reverse-domain form`;
}

/**
 * Whether a redirect URI sent to /oauth/authorize or /oauth/token matches a registered one: exact
 * string comparison, except that a loopback redirect may use any port (RFC 8252 §7.3). A fragment
 * or userinfo never matches, whatever was registered: the port-free comparison would not see them.
 */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (hasFragment(requested) || hasUserinfo(requested)) return false;
  if (registered.includes(requested)) return true;
  let asked: URL;
  try {
    asked = new URL(requested);
  } catch {
    return false;
  }
  if (!isLoopbackRedirect(asked)) return false;
  const withoutPort = (url: URL) => `${url.protocol}//${url.hostname}${url.pathname}${url.search}`;
  return registered.some((uri) => {
    const url = URL.canParse(uri) ? new URL(uri) : undefined;
    return url !== undefined && isLoopbackRedirect(url) && withoutPort(url) === withoutPort(asked);
  });
}

/** The host a person should see on the consent page: where the code will be sent. */
export function redirectHost(uri: string): string {
  const url = new URL(uri);
  return url.host || url.protocol.replace(/:$/, '');
}
