import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy, { type MiddlewareObj, type Request } from '@middy/core';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Authenticator } from '#lib/auth/principal.ts';
import { authenticatedChannel } from '#lib/http/authenticated-channel.ts';
import { type BodyParser, bodyMiddleware, jsonBody } from '#lib/http/body-parsers.ts';
import { answerBeforeDeadline } from '#lib/http/deadline.ts';
import { asDependencyUnavailable } from '#lib/http/dependency-errors.ts';
import { type EarlyRead, startEarlyRead } from '#lib/http/early-read.ts';
import { successBody } from '#lib/http/envelope.ts';
import { errorPayload } from '#lib/http/error-formats.ts';
import { HttpError, ServiceUnavailableError } from '#lib/http/errors.ts';
import type { IdempotentCreate } from '#lib/http/idempotency/keyed-create.ts';
import type { RouteDefinition } from '#lib/http/route.ts';
import { type Parsed, parseRequestPart } from '#lib/http/validation.ts';
import { logger } from '#lib/observability/logger.ts';
import { SIGNAL_FIELDS } from '#lib/observability/signal-fields.ts';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;

/** What a handler receives: the validated request parts and the authenticated caller. */
export interface HandlerInput<R extends RouteDefinition, P, E = never> {
  params: Parsed<R['request']['params']>;
  query: Parsed<R['request']['query']>;
  headers: Parsed<R['request']['headers']>;
  body: Parsed<R['request']['body']>;
  principal: P;
  requestId: string;
  /** Set when the request carries an Idempotency-Key: the create's id and request hash. */
  idempotentCreate?: IdempotentCreate | undefined;
  /**
   * The handler's `earlyRead`, started beside authentication (early-read.ts); undefined when the
   * handler has none or the path or query did not validate: the operation then reads as usual.
   */
  early: Promise<E> | undefined;
}

/** What a handler returns; the pipeline wraps it in the route's envelope and status. */
export interface HandlerOutput {
  data?: unknown;
  meta?: Record<string, unknown>;
  headers?: Record<string, string>;
  /**
   * A response that is not JSON data (a redirect, an HTML page): sent as it is, with the status
   * given and the headers of `headers` (which must name the content type when there is a body).
   */
  raw?: { statusCode: number; body?: string; isBase64Encoded?: boolean };
}

interface PipelineContext<P> extends Context {
  principal: P;
  idempotentCreate?: IdempotentCreate;
  early?: Promise<unknown> | undefined;
}

/**
 * Makes a route's responder honour `Idempotency-Key` (lib/http/idempotency/response-store.ts). Passed by the
 * handlers of `idempotent` routes only, so that other functions do not bundle it.
 */
export type IdempotencyWrapper = <
  C extends Context & { principal: unknown; idempotentCreate?: IdempotentCreate },
>(
  route: RouteDefinition,
  respond: (event: Event, context: C) => Promise<Result>,
) => (event: Event, context: C) => Promise<Result>;

/**
 * What only some handlers pass, so that other functions neither bundle nor load it: the
 * Idempotency-Key wrapper (routes with idempotent: true), a body parser other than JSON
 * (routes with bodyFormat form or multipart), and a read to start beside authentication.
 */
export interface HandlerOptions<R extends RouteDefinition, E> {
  idempotency?: IdempotencyWrapper;
  bodyParser?: BodyParser;
  /** Started together with authentication; the operation receives it as `early` (early-read.ts). */
  earlyRead?: EarlyRead<R, E>;
}

const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

/**
 * On every response the pipeline writes (success, error, preflight, raw): no content sniffing, and
 * HTTPS only from now on (browsers ignore HSTS over plain http, so localhost is unaffected).
 * No includeSubDomains: the hosts below the API's are not this service's to decide.
 */
const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'strict-transport-security': 'max-age=31536000',
};

const baseHeaders = (requestId: string): Record<string, string> => ({
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-request-id': requestId,
  ...SECURITY_HEADERS,
});

const requestIdOf = (event: Event): string => event.requestContext?.requestId ?? 'unknown';

/** Headers every response of an any-origin route carries (no credentials are involved, so `*`). */
const ANY_ORIGIN_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'www-authenticate',
};

/**
 * Build the Lambda handler of one route. Every HTTP function goes through this one chain, in this
 * order: logging context, error mapping, header and event normalisation, authentication (with the
 * handler's early read, if any, sent beside it: early-read.ts), JSON body parsing, zod validation
 * of every request part, then the operation itself. The whole chain runs
 * against the function's deadline (deadline.ts), so a stalled dependency anywhere in it, the
 * credential lookups included, ends as a 503 in the route's error format, not the platform's.
 */
export function httpHandler<R extends RouteDefinition, P, E = never>(
  route: R,
  authenticator: Authenticator<P>,
  operation: (input: HandlerInput<R, P, E>) => Promise<HandlerOutput | undefined>,
  { idempotency, bodyParser = jsonBody, earlyRead }: HandlerOptions<R, E> = {},
) {
  if (authenticator.kind !== route.auth) {
    throw new Error(
      `${route.operationId} declares auth '${route.auth}' but its handler uses '${authenticator.kind}'`,
    );
  }
  if (Boolean(route.idempotent) !== Boolean(idempotency)) {
    throw new Error(
      `${route.operationId}: a route with idempotent: true, and only such a route, passes withIdempotencyKey`,
    );
  }
  if (route.request.body && bodyParser.format !== (route.bodyFormat ?? 'json')) {
    throw new Error(
      `${route.operationId} takes a ${route.bodyFormat} body; its handler passes that parser (lib/http/${route.bodyFormat}-body.ts)`,
    );
  }
  authenticator.prepare();

  // middy's own early timeout covers only the operation, not the middlewares before it; the
  // deadline below covers everything, so middy's is off.
  const chain = middy<Event, Result, Error, PipelineContext<P>>({ timeoutEarlyInMillis: 0 })
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(errorResponses(route))
    .use(httpHeaderNormalizer())
    .use(httpEventNormalizer());
  if (route.cors === 'any-origin') chain.use(anyOriginCors(route));
  if (route.rejectsMethods) chain.use(onlyRouteMethod(route));
  chain.use(authentication(authenticator, route, earlyRead));
  if (route.request.body) {
    chain.use(bodyMiddleware(bodyParser, route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES));
  }

  const respond = async (event: Event, context: PipelineContext<P>): Promise<Result> => {
    const requestId = requestIdOf(event);
    const { params, query, headers, body } = route.request;
    const input = {
      params: params ? parseRequestPart('path', params, event.pathParameters) : undefined,
      query: query ? parseRequestPart('query', query, event.queryStringParameters) : undefined,
      headers: headers ? parseRequestPart('header', headers, event.headers) : undefined,
      body: body ? parseRequestPart('body', body, event.body) : undefined,
      principal: context.principal,
      requestId,
      idempotentCreate: context.idempotentCreate,
      early: context.early,
    } as HandlerInput<R, P, E>;

    const output = await operation(input);
    const responseHeaders = { ...baseHeaders(requestId), ...output?.headers };
    if (output?.raw) {
      if (output.raw.body === undefined) delete responseHeaders['content-type'];
      return {
        statusCode: output.raw.statusCode,
        headers: responseHeaders,
        body: output.raw.body ?? '',
        ...(output.raw.isBase64Encoded ? { isBase64Encoded: true } : {}),
      };
    }
    if (route.successStatus === 204) {
      const { 'content-type': _omit, ...headers204 } = responseHeaders;
      return { statusCode: 204, headers: headers204 };
    }
    const payload =
      route.envelope === 'success'
        ? successBody(requestId, output?.data ?? null, output?.meta)
        : output?.data;
    return { statusCode: route.successStatus, headers: responseHeaders, body: JSON.stringify(payload) };
  };
  // Last before the operation: the caller is known and the body parsed (lib/http/idempotency/response-store.ts).
  chain.handler(idempotency ? idempotency(route, respond) : respond);

  // The normalizers widen middy's event type; what arrives is still a payload 2.0 event.
  const runChain = chain as unknown as (event: Event, context: PipelineContext<P>) => Promise<Result>;
  return answerBeforeDeadline<Event, PipelineContext<P>, Result>(
    runChain,
    (event) => {
      const requestId = requestIdOf(event);
      const timedOut = new ServiceUnavailableError('The request took too long; retry shortly', 'timeout');
      logger.error('Request did not finish before the function timeout', {
        requestId,
        ...answerFields(timedOut),
      });
      return errorResult(route, requestId, timedOut);
    },
    (event, error) => {
      const requestId = requestIdOf(event);
      const answer = toHttpError(error);
      logger.error('Request failed outside the error middleware', {
        requestId,
        ...answerFields(answer),
        error: error as Error,
      });
      return errorResult(route, requestId, answer);
    },
  );
}

function authentication<R extends RouteDefinition, P, E>(
  authenticator: Authenticator<P>,
  route: R,
  earlyRead: EarlyRead<R, E> | undefined,
): MiddlewareObj<Event, Result, Error, PipelineContext<P>> {
  return {
    before: async (request) => {
      // One object for this request, seen by the early read and the credential's check: the items
      // they read through its reader go out together (lib/db/item-reader.ts, readerFor).
      const shared = earlyRead && {};
      request.context.early = shared && startEarlyRead(route, request.event, earlyRead, shared);
      request.context.principal = await authenticator.authenticate(request.event.headers, {
        oauthScope: route.oauthScope,
        sourceIp: request.event.requestContext?.http?.sourceIp ?? 'unknown',
        shared,
      });
      if (authenticatedChannel.hasSubscribers) authenticatedChannel.publish({ route: route.operationId });
    },
  };
}

/**
 * An any-origin route answers its OPTIONS preflight before authentication or body parsing, and
 * every other response carries the CORS headers (error responses get them in errorResponses).
 */
function anyOriginCors<P>(route: RouteDefinition): MiddlewareObj<Event, Result, Error, PipelineContext<P>> {
  const addHeaders = (request: Request<Event, Result>) => {
    if (request.response) request.response.headers = { ...request.response.headers, ...ANY_ORIGIN_HEADERS };
  };
  return {
    before: async (request) => {
      if (request.event.requestContext?.http?.method !== 'OPTIONS') return;
      return {
        statusCode: 204,
        headers: {
          ...SECURITY_HEADERS,
          ...ANY_ORIGIN_HEADERS,
          'access-control-allow-methods': `${route.method}, OPTIONS`,
          'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version',
          'access-control-max-age': '86400',
        },
      };
    },
    after: async (request) => addHeaders(request),
  };
}

/** A method the route only rejects (rejectsMethods) is a 405 naming the one it takes. */
function onlyRouteMethod<P>(route: RouteDefinition): MiddlewareObj<Event, Result, Error, PipelineContext<P>> {
  return {
    before: async (request) => {
      const method = request.event.requestContext?.http?.method;
      if (method === route.method || method === 'OPTIONS') return;
      throw new HttpError(
        405,
        'BAD_REQUEST',
        `${method} is not supported here; use ${route.method}`,
        undefined,
        {
          allow: `${route.method}, OPTIONS`,
        },
      );
    },
  };
}

/**
 * Map anything thrown to the route's error format (ErrorResponse unless the route says otherwise);
 * only HttpErrors show their message to the caller.
 */
function errorResponses<P>(route: RouteDefinition): MiddlewareObj<Event, Result, Error, PipelineContext<P>> {
  return {
    onError: async (request) => {
      const requestId = requestIdOf(request.event);
      const error = toHttpError(request.error);
      if (error.statusCode >= 500) {
        logger.error('Request failed', { requestId, ...answerFields(error), error: request.error as Error });
      } else {
        logger.info('Request rejected', { requestId, ...answerFields(error) });
      }
      request.response = errorResult(route, requestId, error);
    },
  };
}

/** The response of a failed request, in the route's error format with the error's headers. */
function errorResult(route: RouteDefinition, requestId: string, error: HttpError): Result {
  const { statusCode, body } = errorPayload(route.errorFormat ?? 'envelope', requestId, error);
  return {
    statusCode,
    headers: {
      ...baseHeaders(requestId),
      ...(route.cors === 'any-origin' ? ANY_ORIGIN_HEADERS : {}),
      ...error.headers,
    },
    body: JSON.stringify(body),
  };
}

/**
 * What the log line of a failed request says about its answer: the status and code, and for a
 * 503 its cause (a metric filter counts 503s by it).
 */
export function answerFields(error: HttpError): Record<string, string | number> {
  return {
    status: error.statusCode,
    code: error.code,
    ...(error instanceof ServiceUnavailableError
      ? { [SIGNAL_FIELDS.unavailableCause]: error.unavailableCause }
      : {}),
  };
}

function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  const unavailable = asDependencyUnavailable(error);
  if (unavailable) return unavailable;
  return new HttpError(500, 'INTERNAL', 'An unexpected error occurred');
}
