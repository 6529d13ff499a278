import type { MiddlewareObj, Request } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import {
  BadRequestError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '#lib/http/errors.ts';
import { normalisedContentType } from '#lib/http/media-type.ts';
import type { RouteDefinition } from '#lib/http/route.ts';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;

/** A route's body format (lib/http/route.ts), JSON when the route names none. */
export type BodyFormat = NonNullable<RouteDefinition['bodyFormat']>;

// biome-ignore lint/suspicious/noExplicitAny: the pipeline's context type varies by principal
export type BodyMiddleware = MiddlewareObj<Event, Result, Error, any>;

/**
 * How a route's request body is read. JSON is every route's default (jsonBody); the form and
 * multipart parsers live in their own modules and are handed to httpHandler by the few handlers
 * whose route takes them, so that no other function bundles or loads them: busboy and the
 * urlencode parser would otherwise lengthen every function's cold start for three routes' sake.
 */
export interface BodyParser {
  format: BodyFormat;
  middleware(maxBytes: number): BodyMiddleware;
}

/**
 * Wraps a parser with what every format shares: media types are case-insensitive, and a text body
 * in a charset other than UTF-8 is a 415.
 */
export function bodyMiddleware(parser: BodyParser, maxBytes: number): BodyMiddleware {
  const parse = parser.middleware(maxBytes);
  return {
    before: async (request) => {
      const { headers } = request.event;
      const contentType = normalisedContentType(headers['content-type'], parser.format !== 'multipart');
      if (contentType !== undefined) headers['content-type'] = contentType;
      return parse.before?.(request);
    },
  };
}

export function assertBodySize(event: Event, maxBytes: number): void {
  const { body = '', isBase64Encoded } = event;
  const size = isBase64Encoded ? Buffer.byteLength(body, 'base64') : Buffer.byteLength(body, 'utf8');
  if (size > maxBytes) {
    throw new PayloadTooLargeError(`Request body is ${size} bytes; the limit is ${maxBytes}`);
  }
}

/** What a middy body parser says of a body it refused: its status, the parse error, the data. */
export interface ParserFailure {
  statusCode?: number;
  message?: string;
  data?: unknown;
}

/**
 * Runs a middy body parser and turns its own failure (a body it cannot read) into `failed()`;
 * anything else it throws passes through.
 */
export async function runParser(
  parser: { before?: ((request: never) => unknown) | undefined },
  request: Request<Event, Result>,
  packageName: string,
  failed: (cause: ParserFailure) => Error,
): Promise<void> {
  try {
    await parser.before?.(request as never);
  } catch (error) {
    const { cause, statusCode } = error as {
      statusCode?: number;
      cause?: { package?: string; message?: string; data?: unknown };
    };
    if (cause?.package !== packageName) throw error;
    throw failed({ statusCode, message: cause.message, data: cause.data });
  }
}

/**
 * Size and content-type checks, then @middy/http-json-body-parser. An absent body is left
 * undefined so that validation reports it as a missing field (422) like any other.
 */
export const jsonBody: BodyParser = {
  format: 'json',
  middleware(maxBytes) {
    const parser = httpJsonBodyParser();
    return {
      before: async (request) => {
        const { body } = request.event;
        if (body === undefined || body === '') {
          request.event.body = undefined;
          return;
        }
        assertBodySize(request.event, maxBytes);
        await runParser(parser, request, '@middy/http-json-body-parser', jsonFailure);
      },
    };
  },
};

/**
 * A JSON body the parser refused: not JSON at all (400), not sent as JSON (415), or JSON with a
 * key the parser refuses to build an object from (`__proto__`, or a `constructor` holding a
 * `prototype`: prototype pollution). No schema has such a field, so the last is what any unknown
 * field is: a 422 naming it.
 */
function jsonFailure(failure: ParserFailure): Error {
  if (failure.statusCode === 415) return new UnsupportedMediaTypeError('Send the body as application/json');
  if (failure.message !== undefined) return new BadRequestError(`Malformed JSON body: ${failure.message}`);
  const key = String(failure.data);
  return new ValidationError(`Request validation failed: body: the field name '${key}' is not allowed`, [
    { loc: ['body', key], msg: 'Field name not allowed', type: 'forbidden_key' },
  ]);
}
