import { createHash } from 'node:crypto';

/**
 * The page /oauth/authorize shows when it sends nothing to the client (docs/oauth.md, 'The
 * authorization server'): the browser stays here, and the person is told why, in words. The page
 * and the headers it must travel with live together: it runs no script and loads nothing, so its
 * policy allows nothing but its own inline style (by hash), and no site may frame it or learn from
 * a Referer where it was.
 */
const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}';
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

export const ERROR_PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
} as const;

export function errorPage(message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Cannot connect this assistant</title>
<style>${STYLE}</style></head>
<body><h1>Cannot connect this assistant</h1><p>${escapeHtml(message)}</p>
<p>Nothing was sent to the assistant. Start again from the assistant, or ask its maker to check its settings.</p></body></html>`;
}
