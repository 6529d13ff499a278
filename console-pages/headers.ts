/**
 * The headers every console page and file is served with, by CloudFront in AWS and by the harness
 * locally, defined once here. The pages have no inline script or style and load nothing from
 * elsewhere; they call only the console API and the sign-in token endpoint.
 *
 * `strict-transport-security` is sent everywhere: browsers ignore it over plain http (RFC 6797
 * §8.1), so locally it changes nothing, and in AWS the pages are https only. No includeSubDomains,
 * as on the API: hosts below the pages' are not theirs to decide.
 */
export interface ConsolePagesOrigins {
  /** Origins of the API(s) the pages call (`config.json` apiUrl's origin). */
  apiOrigins: readonly string[];
  /** Origin of the sign-in endpoints (the token request is a fetch from the page). */
  signInOrigin: string;
}

export function consolePagesHeaders({
  apiOrigins,
  signInOrigin,
}: ConsolePagesOrigins): Record<string, string> {
  const connect = [...new Set(["'self'", ...apiOrigins.map(originOf), originOf(signInOrigin)])];
  const policy = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src ${connect.join(' ')}`,
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    // The pages post no form anywhere (their forms are handled by script); sign-in is a navigation.
    "form-action 'self'",
  ].join('; ');
  return {
    'content-security-policy': policy,
    'strict-transport-security': 'max-age=31536000',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
  };
}

/** The origin of a URL or origin; refuses anything that is not an absolute URL. */
function originOf(url: string): string {
  return new URL(url).origin;
}
