import * as z from '#lib/validation/zod.ts';

/**
 * String formats at least as strict as the `format` OpenAPI documents for them, so that nothing
 * stored can later break a response's own schema. zod's `url()` parses with
 * WHATWG `new URL()`, which percent-encodes what RFC 3986 forbids and so accepts
 * `https://example.com/a b`; its `email()` lets a domain label end in `-`. These add the rest.
 */

// RFC 3986 §3.3–3.5: pchar = unreserved / pct-encoded / sub-delims / ":" / "@"; query and
// fragment add "/" and "?". Nothing else: no space, no <>"{}|\^`, no [] outside an IP literal,
// nothing outside ASCII (an IRI must be sent percent-encoded).
const PCHAR = "A-Za-z0-9\\-._~!$&'()*+,;=:@";
const PCT = '%[0-9A-Fa-f]{2}';
const PATH = `(?:[${PCHAR}/]|${PCT})*`;
const QUERY = `(?:[${PCHAR}/?]|${PCT})*`;
/** scheme://host[:port][/path][?query][#fragment]; no userinfo, a DNS name as host. */
const WEB_LINK = new RegExp(
  `^https?://(?<host>[A-Za-z0-9.-]+)(?::(?<port>[0-9]{1,5}))?(?:/${PATH})?(?:\\?${QUERY})?(?:#${QUERY})?$`,
  'i',
);

/** An absolute http(s) URL a person can follow: RFC 3986 characters only, a DNS host name. */
export function isWebLink(value: string): boolean {
  const match = WEB_LINK.exec(value);
  if (!match?.groups) return false;
  const { host = '', port } = match.groups;
  if (!z.regexes.domain.test(host)) return false;
  return port === undefined || (Number(port) >= 1 && Number(port) <= 65_535);
}

const WEB_LINK_MESSAGE =
  'an http(s) URL such as https://example.com/jobs, with spaces and <>"{}|\\^` percent-encoded';

/** `format: uri` for links to web pages (apply_url, website_url, social links). */
export const webUrl = () =>
  z
    .url({ protocol: /^https?$/, hostname: z.regexes.domain })
    .check(z.maxLength(2000), z.refine(isWebLink, { message: WEB_LINK_MESSAGE }));

/** `format: email`, with a domain whose every label is a valid DNS label (no leading or trailing `-`). */
export const emailAddress = () =>
  z.email().check(
    z.maxLength(320),
    z.refine((value) => z.regexes.domain.test(value.slice(value.lastIndexOf('@') + 1)), {
      message: 'an e-mail address such as jobs@example.com',
    }),
  );

/** scheme://host[:port][/path][?query][#fragment]; the host a DNS name, an IPv4 address or a bracketed IPv6 one. */
const ENDPOINT_URL = new RegExp(
  `^https?://(?<host>[A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])(?::(?<port>[0-9]{1,5}))?(?:/${PATH})?(?:\\?${QUERY})?(?:#${QUERY})?$`,
  'i',
);

/**
 * An http(s) URL a server posts to (a webhook endpoint): RFC 3986 characters only, no user name or
 * password (a fragment is allowed, as in any URI, and never sent), and a host that is a DNS name
 * or an IP address (a local receiver is `http://127.0.0.1:<port>`; `localhost` names no public
 * host). Whether the address it reaches is allowed is not a question of format:
 * lib/webhooks/endpoint.ts asks it.
 */
export function isEndpointUrl(value: string): boolean {
  const match = ENDPOINT_URL.exec(value);
  if (!match?.groups) return false;
  const { host = '', port } = match.groups;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65_535)) return false;
  if (host.startsWith('[')) return URL.parse(value) !== null;
  return z.regexes.ipv4.test(host) || z.regexes.domain.test(host);
}

const ENDPOINT_URL_MESSAGE =
  'an http(s) URL such as https://example.com/webhooks: a DNS name or IP address as host, no user name or password, spaces and <>"{}|\\^` percent-encoded';

/** `format: uri` for URLs the service posts to (webhook endpoints), at most `max` characters. */
export const endpointUrl = (max: number) =>
  z
    .url({ protocol: /^https?$/ })
    .check(z.maxLength(max), z.refine(isEndpointUrl, { message: ENDPOINT_URL_MESSAGE }));
