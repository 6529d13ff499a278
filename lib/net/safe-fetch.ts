import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { optionalEnv } from '#lib/config/env.ts';
import { isForbiddenAddress } from '#lib/net/forbidden-address.ts';

export { isForbiddenAddress };

export interface SafeFetchOptions {
  /** Body cap in bytes; a larger body (declared or streamed) is `too_large`, unless `truncate`. */
  maxBytes: number;
  /** Keep the first maxBytes of a larger body and stop reading, instead of failing. */
  truncate?: boolean;
  /** Budget for the whole request: DNS, connect, TLS, headers and body. */
  timeoutMs: number;
  /** Accept header. */
  accept?: string;
  /** GET unless said; a POST sends `body` with `headers` (a webhook delivery). */
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /**
   * Let `http:` and loopback addresses through, and only those of the forbidden ones: what the
   * local harness allows webhook endpoints (a receiver on `http://127.0.0.1:<port>`). Private,
   * link-local and the other internal ranges stay refused. Never set in AWS.
   */
  allowLoopback?: boolean;
}

export interface SafeFetchResponse {
  status: number;
  /** Lower-cased names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  body: Buffer;
  /** The URL fetched (normalised); never another one, as redirects are not followed. */
  url: string;
}

export type SafeFetchFailure =
  | 'invalid_url'
  | 'forbidden_address'
  | 'redirect'
  | 'too_large'
  | 'timeout'
  | 'network';

/** Why a fetch was refused or failed; the caller maps the reason to its own error. */
export class SafeFetchError extends Error {
  constructor(
    readonly reason: SafeFetchFailure,
    message: string,
  ) {
    super(message);
    this.name = 'SafeFetchError';
  }
}

/**
 * Origins that may be fetched over http and may resolve to any address, such as the loopback
 * servers tests start: `SAFE_FETCH_ALLOW=http://127.0.0.1:4321,https://localhost:9443`. Production
 * never sets it. Read on every call (it is cheap) so a test can set it and restore it afterwards.
 */
export function trustedOrigins(): Set<string> {
  const entries = (optionalEnv('SAFE_FETCH_ALLOW') ?? '').split(',').map((entry) => entry.trim());
  return new Set(
    entries
      .filter((entry) => entry !== '')
      .map((entry) => {
        const origin = URL.parse(entry);
        if (origin?.protocol !== 'http:' && origin?.protocol !== 'https:') {
          throw new Error(`SAFE_FETCH_ALLOW: ${entry} is not an http(s) origin`);
        }
        return origin.origin;
      }),
  );
}

/**
 * GET a URL that someone outside the service chose (an OAuth client_id metadata document, a photo
 * to import) without letting them aim the request at the service's own network:
 *
 * - only `https:` URLs without credentials in them (`invalid_url`); origins trusted through
 *   SAFE_FETCH_ALLOW (tests only) may also be `http:` and skip the address check below;
 * - the host is resolved once and refused if ANY of its addresses is forbidden (loopback, private,
 *   link-local, metadata…, see isForbiddenAddress), and the connection goes to exactly the
 *   addresses checked, so a second DNS answer (DNS rebinding) cannot swap in another one. The
 *   original host name still goes out as Host and TLS server name, so certificates are checked;
 * - redirects are never followed (`redirect`): the caller decides what one means and, to follow
 *   it, calls safeFetch again so the new URL is checked like the first;
 * - the body stops at maxBytes (`too_large`) and everything at timeoutMs (`timeout`).
 *
 * Every other status is returned as it is; the caller checks for the 200 it wants.
 */
export async function safeFetch(url: string, options: SafeFetchOptions): Promise<SafeFetchResponse> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const { target, addresses } = await beforeDeadline(checkFetchTarget(url, options), deadline, options);
  return await send(target, addresses, options, deadline);
}

/**
 * The checks safeFetch makes before it connects, on their own: the URL's scheme and credentials,
 * then every address its host resolves to. A webhook's URL is checked so when it is registered,
 * and again (by safeFetch) at every delivery. Throws SafeFetchError; gives the addresses to pin.
 */
export async function checkFetchTarget(
  url: string,
  options: Pick<SafeFetchOptions, 'allowLoopback'> = {},
): Promise<{ target: URL; addresses: LookupAddress[] }> {
  const target = URL.parse(url);
  if (!target) throw new SafeFetchError('invalid_url', 'Not a URL');
  const trusted = trustedOrigins().has(target.origin);
  const loopbackAllowed = options.allowLoopback === true;
  if (target.protocol !== 'https:' && !((trusted || loopbackAllowed) && target.protocol === 'http:')) {
    throw new SafeFetchError('invalid_url', `Only https URLs can be fetched, not ${target.protocol}`);
  }
  if (target.username || target.password) {
    throw new SafeFetchError('invalid_url', 'The URL must not carry a user name or password');
  }
  const addresses = await resolveHost(target, trusted, loopbackAllowed);
  if (
    !trusted &&
    target.protocol === 'http:' &&
    !addresses.every((entry) => isLoopbackAddress(entry.address))
  ) {
    throw new SafeFetchError('invalid_url', 'Plain http is allowed to loopback addresses only');
  }
  return { target, addresses };
}

const LOOPBACK = /^(?:127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i;

/** 127.0.0.0/8 and ::1 (also as an IPv4-mapped address). */
export const isLoopbackAddress = (address: string): boolean => LOOPBACK.test(address);

/** The URL's host as DNS and sockets take it: an IPv6 literal without its brackets. */
const bareHost = (target: URL): string => target.hostname.replace(/^\[(.*)\]$/, '$1');

/** Every address of the URL's host (an IP literal resolves to itself), all of them checked. */
async function resolveHost(target: URL, trusted: boolean, loopbackAllowed = false): Promise<LookupAddress[]> {
  const host = bareHost(target);
  let addresses: LookupAddress[];
  try {
    addresses = await lookup(host, { all: true });
  } catch (error) {
    throw new SafeFetchError('network', `Cannot resolve ${host}: ${(error as Error).message}`);
  }
  if (addresses.length === 0) throw new SafeFetchError('network', `${host} has no address`);
  const refused = addresses.find(
    (entry) => isForbiddenAddress(entry.address) && !(loopbackAllowed && isLoopbackAddress(entry.address)),
  );
  if (refused && !trusted) {
    throw new SafeFetchError(
      'forbidden_address',
      `${host} resolves to ${refused.address}, which is not public`,
    );
  }
  return addresses;
}

/** The work's result, or `timeout` as soon as the deadline passes (a DNS lookup cannot be aborted). */
function beforeDeadline<T>(work: Promise<T>, deadline: AbortSignal, options: SafeFetchOptions): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onTimeout = () => reject(timedOut(options));
    if (deadline.aborted) onTimeout();
    deadline.addEventListener('abort', onTimeout, { once: true });
    work.then(resolve, reject).finally(() => deadline.removeEventListener('abort', onTimeout));
  });
}

/**
 * Hands the socket the addresses already checked instead of asking DNS again. All of them when
 * asked for all, so Node's happy-eyeballs connect (autoSelectFamily) can still fall back.
 */
function pinnedLookup(addresses: LookupAddress[]): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    const family = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : 0;
    const usable = addresses.filter((entry) => family === 0 || entry.family === family);
    const [first] = usable;
    if (!first) {
      const error: NodeJS.ErrnoException = new Error(`${hostname} has no IPv${family} address`);
      error.code = 'ENOTFOUND';
      callback(error, '');
    } else if (lookupOptions.all) callback(null, usable);
    else callback(null, first.address, first.family);
  };
}

/** One request to the addresses already checked: redirects refused, body capped, all before the deadline. */
function send(
  target: URL,
  addresses: LookupAddress[],
  options: SafeFetchOptions,
  deadline: AbortSignal,
): Promise<SafeFetchResponse> {
  return new Promise((resolve, reject) => {
    const hostname = bareHost(target);
    const request = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, {
      method: options.method ?? 'GET',
      headers: {
        ...options.headers,
        ...(options.accept ? { accept: options.accept } : {}),
        ...(options.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(options.body)) }),
      },
      // A fresh connection each time: a pooled socket would skip the lookup this guard relies on.
      agent: false,
      lookup: pinnedLookup(addresses),
      // SNI and the certificate check use the name the caller gave (TLS forbids SNI for an IP).
      ...(isIP(hostname) ? {} : { servername: hostname }),
      signal: deadline,
    });
    const fail = (error: SafeFetchError) => {
      reject(error);
      request.destroy();
    };
    const failed = (error: Error) =>
      fail(
        deadline.aborted
          ? timedOut(options)
          : new SafeFetchError(
              'network',
              `${target.host}: ${error.message || (error as NodeJS.ErrnoException).code}`,
            ),
      );
    const tooLarge = () =>
      fail(
        new SafeFetchError('too_large', `The response from ${target.host} exceeds ${options.maxBytes} bytes`),
      );
    request.on('error', failed);
    request.on('response', (response) => {
      response.on('error', failed);
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        const location = response.headers.location ?? '(no location)';
        fail(new SafeFetchError('redirect', `${target.href} answered ${status}, redirecting to ${location}`));
        return;
      }
      if (!options.truncate && Number(response.headers['content-length']) > options.maxBytes) {
        tooLarge();
        return;
      }
      const chunks: Buffer[] = [];
      let received = 0;
      const done = () =>
        resolve({
          status,
          headers: flatHeaders(response.headers),
          body: Buffer.concat(chunks).subarray(0, options.maxBytes),
          url: target.href,
        });
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received <= options.maxBytes) chunks.push(chunk);
        else if (!options.truncate) tooLarge();
        else {
          chunks.push(chunk);
          done();
          request.destroy();
        }
      });
      response.on('end', done);
    });
    request.end(options.body);
  });
}

function timedOut(options: SafeFetchOptions): SafeFetchError {
  return new SafeFetchError('timeout', `No complete response within ${options.timeoutMs} ms`);
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
