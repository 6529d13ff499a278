import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { Authenticator } from '#lib/auth/principal.ts';
import { DEADLINE_MARGIN_MS } from '#lib/http/deadline.ts';
import { formBody } from '#lib/http/form-body.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import type { RouteDefinition } from '#lib/http/route.ts';
import * as z from '#lib/validation/zod.ts';
import { buildHttpApiEvent, matchRoute } from '../../infra/local/http-api-event.ts';

// Failures before the operation runs (credential lookups, body parsing) must come out in the
// API's error shape, and a stall anywhere must be answered before the function's own timeout.

const never = new Promise<never>(() => undefined);

const route = {
  operationId: 'stallThing',
  method: 'POST',
  path: '/api/v1/things',
  handler: 'functions/x/stall-thing.ts',
  area: 'x',
  summary: 'test',
  auth: 'agent',
  envelope: 'success',
  successStatus: 201,
  request: { body: z.strictObject({ size: z.number() }) },
  errors: [],
  permissions: { table: 'readwrite' },
} as const satisfies RouteDefinition;

function authenticator(authenticate: () => Promise<unknown>, kind: RouteDefinition['auth'] = 'agent') {
  return { kind, prepare() {}, authenticate } as Authenticator<unknown>;
}

async function call(
  theRoute: RouteDefinition,
  auth: Authenticator<unknown>,
  operation: () => Promise<unknown> = async () => ({ data: {} }),
  remainingMs = DEADLINE_MARGIN_MS + 200,
) {
  const bodyParser = theRoute.bodyFormat === 'form' ? formBody : undefined;
  const handler = httpHandler(theRoute, auth, operation as never, { bodyParser });
  const match = matchRoute([theRoute], theRoute.method, theRoute.path);
  if (!match) throw new Error('route did not match');
  const event: APIGatewayProxyEventV2 = buildHttpApiEvent(
    {
      method: theRoute.method,
      url: theRoute.path,
      rawHeaders: ['authorization', 'Bearer agk_x', 'content-type', 'application/json'],
      body: Buffer.from(theRoute.bodyFormat === 'form' ? 'size=1' : '{"size":1}'),
      sourceIp: '127.0.0.1',
    },
    match,
  );
  const deadline = Date.now() + remainingMs;
  const context = {
    functionName: theRoute.operationId,
    getRemainingTimeInMillis: () => deadline - Date.now(),
  } as unknown as Context;
  const invoke = handler as unknown as (e: APIGatewayProxyEventV2, c: Context) => Promise<unknown>;
  const result = (await invoke(event, context)) as APIGatewayProxyStructuredResultV2;
  return { ...result, json: JSON.parse(result.body ?? 'null'), requestId: event.requestContext.requestId };
}

describe('the pipeline against failures before and around the operation', () => {
  it('answers a credential lookup that never returns with a 503 ErrorResponse before the timeout', async () => {
    const result = await call(
      route,
      authenticator(() => never),
    );

    expect(result.statusCode).toBe(503);
    expect(result.headers?.['retry-after']).toMatch(/^\d+$/);
    expect(result.headers?.['x-request-id']).toBe(result.requestId);
    expect(result.json).toEqual({
      request_id: result.requestId,
      success: false,
      error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String) },
    });
  });

  it('answers an operation that never returns the same way', async () => {
    const result = await call(
      route,
      authenticator(async () => ({})),
      () => never,
    );

    expect(result.statusCode).toBe(503);
    expect(result.json.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(result.headers?.['retry-after']).toMatch(/^\d+$/);
  });

  it('keeps the route’s error format on a stall (OAuth endpoints answer temporarily_unavailable)', async () => {
    const oauthRoute = { ...route, auth: 'none', errorFormat: 'oauth', bodyFormat: 'form' } as const;
    const result = await call(
      oauthRoute,
      authenticator(() => never, 'none'),
    );

    expect(result.statusCode).toBe(503);
    expect(result.headers?.['retry-after']).toMatch(/^\d+$/);
    expect(result.json).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
  });

  it('maps an unreachable dependency wrapped by a library (as Powertools Parameters does) to 503', async () => {
    const socketError = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
      code: 'ECONNREFUSED',
    });
    const wrapped = Object.assign(new Error(socketError.message, { cause: socketError }), {
      name: 'GetParameterError',
    });
    const result = await call(
      route,
      authenticator(async () => {
        throw wrapped;
      }),
    );

    expect(result.statusCode).toBe(503);
    expect(result.headers?.['retry-after']).toMatch(/^\d+$/);
    expect(result.json.error.code).toBe('SERVICE_UNAVAILABLE');
  });

  it('maps an AWS service’s own fault to 503 and a fault of ours to a plain 500', async () => {
    const serverFault = Object.assign(new Error('boom'), { name: 'InternalServerError', $fault: 'server' });
    const clientFault = Object.assign(new Error('bad key'), {
      name: 'ValidationException',
      $fault: 'client',
    });
    const failing = (error: Error) =>
      authenticator(async () => {
        throw error;
      });

    expect((await call(route, failing(serverFault))).statusCode).toBe(503);
    const ours = await call(route, failing(clientFault));
    expect(ours.statusCode).toBe(500);
    expect(ours.json.error).toEqual({ code: 'INTERNAL', message: 'An unexpected error occurred' });
  });

  it('still answers at once when nothing stalls', async () => {
    const result = await call(
      route,
      authenticator(async () => ({})),
      async () => ({ data: { ok: 1 } }),
      60_000,
    );

    expect(result.statusCode).toBe(201);
    expect(result.json.data).toEqual({ ok: 1 });
  });
});
