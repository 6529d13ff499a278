import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy, { type MiddlewareObj, type Request } from '@middy/core';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { z } from 'zod';
import type { Authenticator } from '#lib/auth/principal.ts';
import { markAuthenticated } from '#lib/db/call-counter.ts';
import { asDependencyUnavailable } from '#lib/http/dependency-errors.ts';
import { errorBody, successBody } from '#lib/http/envelope.ts';
import {
  BadRequestError,
  HttpError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
} from '#lib/http/errors.ts';
import type { RouteDefinition } from '#lib/http/route.ts';
import { parseRequestPart } from '#lib/http/validation.ts';
import { logger } from '#lib/observability/logger.ts';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What a handler receives: the validated request parts and the authenticated caller. */
export interface HandlerInput<R extends RouteDefinition, P> {
  params: Parsed<R['request']['params']>;
  query: Parsed<R['request']['query']>;
  headers: Parsed<R['request']['headers']>;
  body: Parsed<R['request']['body']>;
  principal: P;
  requestId: string;
}

/** What a handler returns; the pipeline wraps it in the route's envelope and status. */
export interface HandlerOutput {
  data?: unknown;
  meta?: Record<string, unknown>;
  headers?: Record<string, string>;
}

interface PipelineContext<P> extends Context {
  principal: P;
}

const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

const baseHeaders = (requestId: string): Record<string, string> => ({
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-request-id': requestId,
});

const requestIdOf = (event: Event): string => event.requestContext?.requestId ?? 'unknown';

/**
 * Build the Lambda handler of one route. Every HTTP function goes through this one chain, in this
 * order: logging context, error mapping, header and event normalisation, authentication, JSON body
 * parsing, zod validation of every request part, then the operation itself.
 */
export function httpHandler<R extends RouteDefinition, P>(
  route: R,
  authenticator: Authenticator<P>,
  operation: (input: HandlerInput<R, P>) => Promise<HandlerOutput | undefined>,
) {
  if (authenticator.kind !== route.auth) {
    throw new Error(
      `${route.operationId} declares auth '${route.auth}' but its handler uses '${authenticator.kind}'`,
    );
  }
  authenticator.prepare();

  const chain = middy<Event, Result, Error, PipelineContext<P>>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(errorResponses())
    .use(httpHeaderNormalizer())
    .use(httpEventNormalizer())
    .use(authentication(authenticator));
  if (route.request.body) {
    chain.use(jsonRequestBody(route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES));
  }

  return chain.handler(async (event, context) => {
    const requestId = requestIdOf(event);
    const { params, query, headers, body } = route.request;
    const input = {
      params: params ? parseRequestPart('path', params, event.pathParameters) : undefined,
      query: query ? parseRequestPart('query', query, event.queryStringParameters) : undefined,
      headers: headers ? parseRequestPart('header', headers, event.headers) : undefined,
      body: body ? parseRequestPart('body', body, event.body) : undefined,
      principal: context.principal,
      requestId,
    } as HandlerInput<R, P>;

    const output = await operation(input);
    const responseHeaders = { ...baseHeaders(requestId), ...output?.headers };
    if (route.successStatus === 204) {
      const { 'content-type': _omit, ...headers204 } = responseHeaders;
      return { statusCode: 204, headers: headers204 };
    }
    const payload =
      route.envelope === 'success'
        ? successBody(requestId, output?.data ?? null, output?.meta)
        : output?.data;
    return { statusCode: route.successStatus, headers: responseHeaders, body: JSON.stringify(payload) };
  });
}

function authentication<P>(
  authenticator: Authenticator<P>,
): MiddlewareObj<Event, Result, Error, PipelineContext<P>> {
  return {
    before: async (request) => {
      request.context.principal = await authenticator.authenticate(request.event.headers);
      markAuthenticated();
    },
  };
}

/**
 * Size and content-type checks, then @middy/http-json-body-parser. An absent body is left
 * undefined so that validation reports it as a missing field (422) like any other.
 */
function jsonRequestBody<P>(maxBytes: number): MiddlewareObj<Event, Result, Error, PipelineContext<P>> {
  const parser = httpJsonBodyParser();
  return {
    before: async (request) => {
      const { body, isBase64Encoded } = request.event;
      if (body === undefined || body === '') {
        request.event.body = undefined;
        return;
      }
      const size = isBase64Encoded ? Buffer.byteLength(body, 'base64') : Buffer.byteLength(body, 'utf8');
      if (size > maxBytes) {
        throw new PayloadTooLargeError(`Request body is ${size} bytes; the limit is ${maxBytes}`);
      }
      try {
        await parser.before?.(request as unknown as Request);
      } catch (error) {
        const cause = (error as { cause?: { package?: string; message?: string } }).cause;
        if (cause?.package !== '@middy/http-json-body-parser') throw error;
        if (cause.message !== undefined) throw new BadRequestError(`Malformed JSON body: ${cause.message}`);
        throw new UnsupportedMediaTypeError('Send the body as application/json');
      }
    },
  };
}

/** Map anything thrown to an ErrorResponse; only HttpErrors show their message to the caller. */
function errorResponses<P>(): MiddlewareObj<Event, Result, Error, PipelineContext<P>> {
  return {
    onError: async (request) => {
      const requestId = requestIdOf(request.event);
      const error = toHttpError(request.error);
      if (error.statusCode >= 500) {
        logger.error('Request failed', { requestId, error: request.error as Error });
      } else {
        logger.info('Request rejected', { requestId, status: error.statusCode, code: error.code });
      }
      request.response = {
        statusCode: error.statusCode,
        headers: { ...baseHeaders(requestId), ...error.headers },
        body: JSON.stringify(errorBody(requestId, error)),
      };
    },
  };
}

function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  const unavailable = asDependencyUnavailable(error);
  // Also covers middy's own TimeoutError, thrown just before the function would time out.
  if (unavailable) return unavailable;
  return new HttpError(500, 'INTERNAL', 'An unexpected error occurred');
}
