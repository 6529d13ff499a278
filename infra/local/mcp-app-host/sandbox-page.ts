/**
 * The sandbox page of a web host (MCP Apps 2026-01-26, "Sandbox proxy"), served from an origin
 * other than the host's: it tells the host it is ready, loads the view's HTML it is sent into an
 * inner iframe under a CSP built from the resource's `_meta.ui.csp`, and relays every other
 * message between host and view. The page itself is served with a CSP that its srcdoc frame
 * inherits, so the view can reach no network whatever its own page says, and that lets only the
 * host's origin frame it. Both the local review host (dev-review-host.ts) and the browser tests'
 * host serve it.
 */
export const sandboxPageCsp = (hostOrigin: string) =>
  `default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'none'; frame-ancestors ${hostOrigin}`;

/** The sandbox page's response headers: only the host's origin may frame it. */
export const sandboxPageHeaders = (hostOrigin: string) => ({
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': sandboxPageCsp(hostOrigin),
  'cache-control': 'no-store',
});

const script = (hostOrigin: string) => `
const hostOrigin = ${JSON.stringify(hostOrigin)};
const inner = document.createElement('iframe');
inner.title = 'view';
inner.setAttribute('sandbox', 'allow-scripts');
inner.style.cssText = 'display:block;width:100%;height:100%;border:0';
document.body.append(inner);
const list = (domains) => (domains && domains.length ? domains.join(' ') : '');
function withCsp(html, csp) {
  const c = csp || {};
  const policy = [
    "default-src 'none'",
    "script-src 'self' 'unsafe-inline' " + list(c.resourceDomains),
    "style-src 'self' 'unsafe-inline' " + list(c.resourceDomains),
    "connect-src 'self' " + list(c.connectDomains),
    "img-src 'self' data: " + list(c.resourceDomains),
    "font-src 'self' " + list(c.resourceDomains),
    "media-src 'self' data: " + list(c.resourceDomains),
    'frame-src ' + (list(c.frameDomains) || "'none'"),
    "object-src 'none'",
    'base-uri ' + (list(c.baseUriDomains) || "'self'"),
  ].join('; ');
  const meta = '<meta http-equiv="Content-Security-Policy" content="' + policy.replace(/"/g, '&quot;') + '">';
  return html.replace(/<head>/i, '<head>' + meta);
}
window.addEventListener('message', (event) => {
  const message = event.data;
  if (event.source === window.parent && event.origin === hostOrigin) {
    if (message && message.method === 'ui/notifications/sandbox-resource-ready') {
      inner.srcdoc = withCsp(message.params.html, message.params.csp);
    } else if (!(message && typeof message.method === 'string' && message.method.startsWith('ui/notifications/sandbox-'))) {
      inner.contentWindow.postMessage(message, '*');
    }
  } else if (event.source === inner.contentWindow) {
    window.parent.postMessage(message, hostOrigin);
  }
});
window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} }, hostOrigin);
`;

/** The sandbox page for a host of the given origin. */
export const sandboxPage = (hostOrigin: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0;height:100%}</style></head><body><script>${script(hostOrigin)}</script></body></html>`;
