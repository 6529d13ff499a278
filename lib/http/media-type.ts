import { UnsupportedMediaTypeError } from '#lib/http/errors.ts';

/**
 * Content-Type handling before a body parser runs (RFC 9110 §8.3.1): the type and subtype are
 * case-insensitive, so `APPLICATION/JSON` is JSON; parameter names are case-insensitive too. A text
 * body (JSON, a form) declared in any charset but UTF-8 is a 415: we do not transcode, and parsing
 * UTF-16 as UTF-8 would only give a confusing 400.
 */
const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+\/[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
const UTF8 = /^utf-?8$/i;

export interface MediaType {
  /** `type/subtype`, lower case. */
  essence: string;
  /** Parameters by lower-case name, values unquoted (case kept: a multipart boundary is exact). */
  params: Record<string, string>;
}

export function parseMediaType(header: string | undefined): MediaType | undefined {
  if (header === undefined) return undefined;
  const [head = '', ...rest] = header.split(';');
  const essence = head.trim();
  if (!TOKEN.test(essence)) return undefined;
  const params: Record<string, string> = {};
  for (const part of rest) {
    const at = part.indexOf('=');
    if (at <= 0) continue;
    const name = part.slice(0, at).trim().toLowerCase();
    const raw = part.slice(at + 1).trim();
    params[name] = raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2 ? raw.slice(1, -1) : raw;
  }
  return { essence: essence.toLowerCase(), params };
}

/**
 * The content-type header as the body parsers expect it: the media type in lower case, the
 * parameters as sent. A declared charset other than UTF-8 on a text body is refused (415).
 */
export function normalisedContentType(header: string | undefined, textBody: boolean): string | undefined {
  const mediaType = parseMediaType(header);
  if (!header || !mediaType) return header;
  const charset = mediaType.params.charset;
  if (textBody && charset !== undefined && !UTF8.test(charset)) {
    throw new UnsupportedMediaTypeError(`The body must be UTF-8; charset=${charset} is not supported`);
  }
  const at = header.indexOf(';');
  return at === -1 ? mediaType.essence : `${mediaType.essence}${header.slice(at)}`;
}
