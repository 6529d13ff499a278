/**
 * The page /oauth/authorize shows when it cannot trust the client or its redirect URI (DESIGN §9):
 * the browser stays here, and the person is told why, in words.
 */
const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

export function errorPage(message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Cannot connect this assistant</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}</style></head>
<body><h1>Cannot connect this assistant</h1><p>${escapeHtml(message)}</p>
<p>Nothing was sent to the assistant. Start again from the assistant, or ask its maker to check its settings.</p></body></html>`;
}
