import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import type { Authenticator } from '#lib/auth/principal.ts';
import { OAuthError } from '#lib/http/errors.ts';
import { formBody } from '#lib/http/form-body.ts';
import { type HandlerOutput, httpHandler } from '#lib/http/pipeline.ts';
import type { RouteDefinition } from '#lib/http/route.ts';
import * as z from '#lib/validation/zod.ts';
import { buildHttpApiEvent, matchRoute } from '../../infra/local/http-api-event.ts';

// The pipeline's OAuth-facing options (errorFormat, bodyFormat, cors, raw output) with a stub
// authenticator (a port); the events are built as the harness builds them.
const open: Authenticator<{ sourceIp: string }> = {
  kind: 'none',
  prepare() {},
  async authenticate(_headers, request) {
    return { sourceIp: request?.sourceIp ?? '' };
  },
};

const tokenRoute = {
  operationId: 'token',
  method: 'POST',
  path: '/oauth/token',
  handler: 'functions/oauth/token.ts',
  area: 'oauth',
  summary: 'test',
  auth: 'none',
  envelope: 'bare',
  errorFormat: 'oauth',
  bodyFormat: 'form',
  cors: 'any-origin',
  successStatus: 200,
  request: { body: z.object({ grant_type: z.string(), code: z.optional(z.string()) }) },
  errors: [400],
  permissions: { table: 'read' },
} as const satisfies RouteDefinition;

async function send(
  route: RouteDefinition,
  operation: (input: unknown) => Promise<HandlerOutput | undefined>,
  request: { method?: string; body?: string; contentType?: string; url?: string } = {},
) {
  const bodyParser = route.bodyFormat === 'form' ? formBody : undefined;
  const handler = httpHandler(route, open, async (input) => operation(input), { bodyParser });
  const url = request.url ?? route.path;
  const method = request.method ?? route.method;
  const match = matchRoute([route], method, url.split('?')[0] ?? '');
  if (!match) throw new Error('route did not match');
  const rawHeaders = request.contentType ? ['Content-Type', request.contentType] : [];
  const event: APIGatewayProxyEventV2 = buildHttpApiEvent(
    { method, url, rawHeaders, body: Buffer.from(request.body ?? ''), sourceIp: '127.0.0.9' },
    match,
  );
  const context = {
    getRemainingTimeInMillis: () => 10_000,
    functionName: route.operationId,
  } as unknown as Context;
  const invoke = handler as unknown as (e: APIGatewayProxyEventV2, c: Context) => Promise<unknown>;
  const result = (await invoke(event, context)) as APIGatewayProxyStructuredResultV2;
  return { ...result, json: result.body ? JSON.parse(String(result.body)) : undefined };
}

const FORM = 'application/x-www-form-urlencoded';

describe('pipeline: OAuth endpoints', () => {
  it('parses a form body and hands the source address to the authenticator', async () => {
    const seen: unknown[] = [];
    const result = await send(
      tokenRoute,
      async (input) => {
        seen.push(input);
        return { data: { ok: true } };
      },
      { body: 'grant_type=authorization_code&code=a%2Bb', contentType: FORM },
    );

    expect(result.statusCode).toBe(200);
    expect(seen[0]).toMatchObject({
      body: { grant_type: 'authorization_code', code: 'a+b' },
      principal: { sourceIp: '127.0.0.9' },
    });
    expect(result.headers).toMatchObject({ 'access-control-allow-origin': '*', 'cache-control': 'no-store' });
  });

  it.each([
    ['a parameter sent twice', 'grant_type=a&grant_type=b', FORM, 400],
    ['a missing parameter', 'code=x', FORM, 400],
    ['a JSON body', '{"grant_type":"a"}', 'application/json', 415],
  ])('answers %s with an RFC 6749 error body and CORS', async (_name, body, contentType, status) => {
    const operation = vi.fn(async () => ({ data: {} }));

    const result = await send(tokenRoute, operation, { body, contentType });

    expect(operation).not.toHaveBeenCalled();
    expect(result.statusCode).toBe(status);
    expect(result.json).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    expect(result.headers?.['access-control-allow-origin']).toBe('*');
  });

  it('refuses to build a form route without the form parser, or with another one', async () => {
    const { jsonBody } = await import('#lib/http/body-parsers.ts');
    const operation = async () => undefined;
    expect(() => httpHandler(tokenRoute, open, operation)).toThrow(/takes a form body/);
    expect(() => httpHandler(tokenRoute, open, operation, { bodyParser: jsonBody })).toThrow(/form-body\.ts/);
    expect(() => httpHandler(tokenRoute, open, operation, { bodyParser: formBody })).not.toThrow();
  });

  it('writes an OAuthError with its own code and status', async () => {
    const result = await send(
      tokenRoute,
      async () => {
        throw new OAuthError('invalid_grant', 'The code has expired');
      },
      { body: 'grant_type=authorization_code', contentType: FORM },
    );

    expect(result.statusCode).toBe(400);
    expect(result.json).toEqual({ error: 'invalid_grant', error_description: 'The code has expired' });
  });

  it('answers an OPTIONS preflight itself, before authentication, parsing and the operation', async () => {
    const operation = vi.fn(async () => ({ data: {} }));

    const result = await send(tokenRoute, operation, { method: 'OPTIONS' });

    expect(operation).not.toHaveBeenCalled();
    expect(result.statusCode).toBe(204);
    expect(result.headers).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'POST, OPTIONS',
      'access-control-allow-headers': expect.stringContaining('authorization'),
    });
  });

  it('sends a raw response as it is: a redirect without a body or content type', async () => {
    const route = { ...tokenRoute, method: 'GET', request: {}, bodyFormat: undefined } as RouteDefinition;

    const result = await send(route, async () => ({
      raw: { statusCode: 302 },
      headers: { location: 'https://console.example/oauth/consent?request_id=x' },
    }));

    expect(result.statusCode).toBe(302);
    expect(result.headers?.location).toBe('https://console.example/oauth/consent?request_id=x');
    expect(result.headers?.['content-type']).toBeUndefined();
    expect(result.body).toBe('');
  });
});

describe('pipeline: consent endpoints (HTTPValidationError)', () => {
  const consentRoute = {
    ...tokenRoute,
    method: 'GET',
    path: '/api/v1/oauth/requests/{request_id}',
    errorFormat: 'http-validation',
    bodyFormat: undefined,
    cors: undefined,
    request: { params: z.strictObject({ request_id: z.uuid() }) },
  } as RouteDefinition;

  it('answers a bad id with 422 {detail: [{loc, msg, type}]}', async () => {
    const result = await send(consentRoute, async () => ({ data: {} }), {
      url: '/api/v1/oauth/requests/nope',
    });

    expect(result.statusCode).toBe(422);
    expect(result.json).toEqual({
      detail: [{ loc: ['path', 'request_id'], msg: expect.any(String), type: expect.any(String) }],
    });
  });
});
