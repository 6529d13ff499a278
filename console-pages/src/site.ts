/**
 * Where the pages live: the base path the build was made for ('/' or e.g. '/console/') on this
 * page's origin. Page paths below are relative to it ('', 'oauth/consent', …).
 */
export const BASE_PATH = CONSOLE_BASE_PATH;

/** An absolute path to a page of the site. */
export const pagePath = (page: string) => `${BASE_PATH}${page}`;

/** The site's own URL: the sign-out URL; `siteUrl('auth/callback')` is the redirect URI. */
export const siteUrl = (page = '') => `${window.location.origin}${pagePath(page)}`;

/** The path and query of this page, as a `next` to come back to. */
export const here = () => window.location.pathname + window.location.search;

/**
 * Only a path of this site on this origin may be a `next`; anything else (another site, a
 * `//host` path, a path outside the base) leads home.
 */
export function safeNext(next: string | null | undefined): string {
  const home = pagePath('');
  if (typeof next !== 'string' || !next.startsWith(home)) return home;
  try {
    const url = new URL(next, window.location.origin);
    if (url.origin === window.location.origin && url.pathname.startsWith(home)) {
      return url.pathname + url.search + url.hash;
    }
  } catch {
    // not a URL: go home
  }
  return home;
}

/** The sign-in page, which returns to `next` afterwards. */
export const signInPath = (next: string) => `${pagePath('sign-in')}?next=${encodeURIComponent(next)}`;
