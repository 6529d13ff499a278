import { gatewayError, type HttpResponse } from './lambda-runner.ts';

/**
 * The local stack answers only requests addressed to it by a loopback name. It listens on
 * 127.0.0.1, but a web page can still reach it through DNS rebinding: a name of the page's own
 * (evil.example) that resolves to 127.0.0.1 once the page has loaded, so the browser takes the
 * stack for the page's origin and lets its script read the answers; `/console/dev/token` would then
 * hand it a platform admin's token. The browser sends that name as the Host, which is how such a
 * request is told apart: any other Host than these names (with any port, or none) is refused with
 * 421 Misdirected Request, before anything else is done.
 */
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

export const MISDIRECTED_MESSAGE =
  'Misdirected Request: this local stack answers only Host localhost, 127.0.0.1 or [::1] (a guard against DNS rebinding)';

/** The answer to a request whose Host is not a loopback name nor `listenAddress`; undefined to serve it. */
export function refuseForeignHost(host: string | undefined, listenAddress: string): HttpResponse | undefined {
  const name = host === undefined ? undefined : hostName(host.toLowerCase());
  if (name !== undefined && (LOOPBACK_NAMES.has(name) || name === bracketed(listenAddress))) return undefined;
  const refused = gatewayError(421, MISDIRECTED_MESSAGE);
  refused.headers.connection = 'close';
  return refused;
}

/** The name part of a Host header (`name`, `name:port`, `[v6]`, `[v6]:port`); undefined if malformed. */
function hostName(host: string): string | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(host);
  return match?.[1];
}

const bracketed = (address: string) => (address.includes(':') ? `[${address}]` : address);
