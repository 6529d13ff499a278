import { hasFragment, hasUserinfo } from '#lib/oauth/redirect-uris.ts';

/**
 * What a client_id in URL form must look like before its Client ID Metadata Document is fetched:
 * https, a path below the root, no fragment (not even an empty `#`), no userinfo, no dot
 * segments, plain or percent-encoded, and no query (not even an empty `?`): a query the server
 * ignores makes the same document a new URL at will, each one fetched and cached anew. A URL's parser removes dot segments and an empty fragment
 * silently, so the rules read the string as sent: `https://a.example/x/../y` would otherwise be
 * fetched as `https://a.example/y`, a document its author never published under that name.
 * `httpOrigins` are origins the caller may fetch over plain http (the SSRF guard's test
 * allow-list); production has none.
 */
export function clientMetadataUrlProblem(
  clientId: string,
  httpOrigins: ReadonlySet<string> = new Set(),
): string | undefined {
  const url = URL.parse(clientId);
  if (!url) return 'is not a URL';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && httpOrigins.has(url.origin))) {
    return 'must be an https URL';
  }
  if (hasFragment(clientId)) return 'must not contain a fragment (#)';
  if (hasUserinfo(clientId)) return 'must not contain a user name or password';
  const rawPath = /^[a-z][a-z0-9+.-]*:\/\/[^/?#\\]*([^?#]*)/i.exec(clientId)?.[1] ?? '';
  const segments = rawPath.split(/[/\\]/).map((segment) => segment.replace(/%2e/gi, '.'));
  if (segments.some((segment) => segment === '.' || segment === '..')) {
    return 'must not contain . or .. path segments';
  }
  if (rawPath.replace(/^[/\\]+/, '') === '' || url.pathname === '/') {
    return 'must have a path: the document lives below the site, not at its root';
  }
  if (clientId.includes('?')) return 'must not contain a query string (?)';
  return undefined;
}
