import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { Authenticator } from '#lib/auth/principal.ts';
import { NotFoundError, UnauthorizedError } from '#lib/http/errors.ts';
import { type HandlerOutput, httpHandler } from '#lib/http/pipeline.ts';
import type { RouteDefinition } from '#lib/http/route.ts';
import * as z from '#lib/validation/zod.ts';
import { buildHttpApiEvent, matchRoute } from '../../infra/local/http-api-event.ts';

// A unit test of the pipeline alone: the authenticator (a port) is a stub, the events are real.
const stubAuth: Authenticator<{ name: string }> = {
  kind: 'console',
  prepare() {},
  async authenticate(headers) {
    if (headers.authorization !== 'Bearer good') throw new UnauthorizedError('no', 'Bearer realm="test"');
    return { name: 'tester' };
  },
};

const route = {
  operationId: 'doThing',
  method: 'PUT',
  path: '/api/v1/things/{thing_id}',
  handler: 'functions/x/do-thing.ts',
  area: 'x',
  summary: 'test',
  auth: 'console',
  envelope: 'success',
  successStatus: 200,
  request: {
    params: z.strictObject({ thing_id: z.uuid() }),
    query: z.strictObject({ verbose: z.optional(z.enum(['true', 'false'])) }),
    body: z.strictObject({ size: z.number().check(z.int(), z.gte(1)) }),
  },
  errors: [404],
  permissions: { table: 'read' },
} as const satisfies RouteDefinition;

const THING = '0b8a4f2e-4c1d-4f7e-9a3b-2c1d0e9f8a7b';

async function call(
  operation: () => Promise<HandlerOutput | undefined>,
  options: {
    url?: string;
    body?: string;
    auth?: string;
    routeOverride?: RouteDefinition;
    operation?: (input: unknown) => void;
  } = {},
) {
  const theRoute = options.routeOverride ?? route;
  const handler = httpHandler(theRoute, stubAuth, async (input) => {
    options.operation?.(input);
    return operation();
  });
  const url = options.url ?? `/api/v1/things/${THING}`;
  const match = matchRoute([theRoute], theRoute.method, url.split('?')[0] ?? '');
  if (!match) throw new Error('route did not match');
  const event: APIGatewayProxyEventV2 = buildHttpApiEvent(
    {
      method: theRoute.method,
      url,
      rawHeaders: ['Authorization', options.auth ?? 'Bearer good', 'Content-Type', 'application/json'],
      body: Buffer.from(options.body ?? '{"size":2}'),
      sourceIp: '127.0.0.1',
    },
    match,
  );
  const context = { getRemainingTimeInMillis: () => 10_000, functionName: 'doThing' } as unknown as Context;
  const invoke = handler as unknown as (e: APIGatewayProxyEventV2, c: Context) => Promise<unknown>;
  const result = (await invoke(event, context)) as APIGatewayProxyStructuredResultV2;
  return {
    ...result,
    json: result.body ? JSON.parse(result.body) : undefined,
    requestId: event.requestContext.requestId,
  };
}

describe('httpHandler', () => {
  it('hands validated input and the principal to the operation and wraps the result', async () => {
    let seen: unknown;
    const result = await call(async () => ({ data: { ok: true } }), {
      url: `/api/v1/things/${THING}?verbose=true`,
      operation: (input) => (seen = input),
    });

    expect(seen).toMatchObject({
      params: { thing_id: THING },
      query: { verbose: 'true' },
      body: { size: 2 },
      principal: { name: 'tester' },
      requestId: result.requestId,
    });
    expect(result.statusCode).toBe(200);
    expect(result.json).toEqual({ request_id: result.requestId, success: true, data: { ok: true } });
    expect(result.headers).toMatchObject({ 'x-request-id': result.requestId, 'cache-control': 'no-store' });
  });

  it('turns domain errors into ErrorResponse with their status', async () => {
    const result = await call(async () => {
      throw new NotFoundError('No such thing');
    });

    expect(result.statusCode).toBe(404);
    expect(result.json).toEqual({
      request_id: result.requestId,
      success: false,
      error: { code: 'NOT_FOUND', message: 'No such thing' },
    });
  });

  it('hides the message of unexpected errors behind a plain 500', async () => {
    const result = await call(async () => {
      throw new Error('secret table name leaked');
    });

    expect(result.statusCode).toBe(500);
    expect(result.json.error).toEqual({ code: 'INTERNAL', message: 'An unexpected error occurred' });
    expect(result.body).not.toContain('secret');
  });

  it('answers throttling and unreachable dependencies with 503 and retry-after', async () => {
    for (const error of [
      Object.assign(new Error('slow down'), { name: 'ProvisionedThroughputExceededException' }),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
    ]) {
      const result = await call(async () => {
        throw error;
      });
      expect(result.statusCode).toBe(503);
      expect(result.headers?.['retry-after']).toMatch(/^\d+$/);
      expect(result.json.error.code).toBe('SERVICE_UNAVAILABLE');
    }
  });

  it('authenticates before anything else', async () => {
    const result = await call(async () => ({ data: 1 }), { auth: 'Bearer bad', body: '{nope' });

    expect(result.statusCode).toBe(401);
    expect(result.headers?.['www-authenticate']).toBe('Bearer realm="test"');
  });

  it('validates query strings and bodies, rejecting unknown fields', async () => {
    const badQuery = await call(async () => ({ data: 1 }), {
      url: `/api/v1/things/${THING}?verbose=maybe&extra=1`,
    });
    expect(badQuery.statusCode).toBe(422);
    expect(badQuery.json.error.details.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual([
      'query.extra',
      'query.verbose',
    ]);

    const badBody = await call(async () => ({ data: 1 }), { body: '{"size":0,"admin":true}' });
    expect(badBody.statusCode).toBe(422);
    expect(badBody.json.error.details.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual([
      'body.admin',
      'body.size',
    ]);
  });

  it('answers 204 with no body and no content type', async () => {
    const result = await call(async () => undefined, { routeOverride: { ...route, successStatus: 204 } });

    expect(result.statusCode).toBe(204);
    expect(result.body).toBeUndefined();
    expect(result.headers?.['content-type']).toBeUndefined();
  });

  it('refuses, at load time, a handler whose authenticator is not the route’s', () => {
    expect(() => httpHandler({ ...route, auth: 'agent' }, stubAuth, async () => undefined)).toThrow(
      /declares auth/,
    );
  });
});
