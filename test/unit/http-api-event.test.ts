import { describe, expect, it } from 'vitest';
import type { RouteDefinition } from '#lib/http/route.ts';
import * as z from '#lib/validation/zod.ts';
import { buildHttpApiEvent, matchRoute, parseQueryString } from '../../infra/local/http-api-event.ts';

const route = (method: RouteDefinition['method'], path: string): RouteDefinition => ({
  operationId: `${method} ${path}`,
  method,
  path,
  handler: 'functions/x/y.ts',
  area: 'x',
  summary: '',
  auth: 'console',
  envelope: 'success',
  successStatus: 200,
  request: { params: z.strictObject({}) },
  errors: [],
  permissions: { table: 'read' },
});

const routes = [
  route('GET', '/api/v1/things/{thing_id}'),
  route('GET', '/api/v1/things/special'),
  route('PUT', '/api/v1/things/{thing_id}/parts/{part_id}'),
];

const request = (overrides: Partial<Parameters<typeof buildHttpApiEvent>[0]> = {}) => ({
  method: 'GET',
  url: '/api/v1/things/abc',
  rawHeaders: ['Host', '127.0.0.1:3000', 'User-Agent', 'curl/8'],
  body: Buffer.alloc(0),
  sourceIp: '127.0.0.1',
  ...overrides,
});

describe('matchRoute', () => {
  it('matches parameters one segment each and decodes them', () => {
    const match = matchRoute(routes, 'PUT', '/api/v1/things/a%20b/parts/c');

    expect(match?.route.path).toBe('/api/v1/things/{thing_id}/parts/{part_id}');
    expect(match?.pathParameters).toEqual({ thing_id: 'a b', part_id: 'c' });
  });

  it('prefers a literal segment over a parameter, and needs the method to match', () => {
    expect(matchRoute(routes, 'GET', '/api/v1/things/special')?.route.path).toBe('/api/v1/things/special');
    expect(matchRoute(routes, 'DELETE', '/api/v1/things/abc')).toBeUndefined();
    expect(matchRoute(routes, 'GET', '/api/v1/things/')).toBeUndefined();
    expect(matchRoute(routes, 'GET', '/api/v1/things/a/b')).toBeUndefined();
  });

  it('lets a last {name+} take the rest of the path, after every more specific route', () => {
    const wellKnown = [
      route('GET', '/.well-known/{proxy+}'),
      route('GET', '/.well-known/oauth-authorization-server'),
    ];

    expect(matchRoute(wellKnown, 'GET', '/.well-known/oauth-authorization-server')?.route.path).toBe(
      '/.well-known/oauth-authorization-server',
    );
    expect(matchRoute(wellKnown, 'GET', '/.well-known/openid-configuration/x')?.pathParameters).toEqual({
      proxy: 'openid-configuration/x',
    });
    expect(matchRoute(wellKnown, 'GET', '/.well-known/')).toBeUndefined();
  });

  it('sends OPTIONS to the route of the path only when it answers CORS preflights', () => {
    const plain = route('POST', '/oauth/token');
    const cors = { ...plain, cors: 'any-origin' as const };

    expect(matchRoute([plain], 'OPTIONS', '/oauth/token')).toBeUndefined();
    expect(matchRoute([cors], 'OPTIONS', '/oauth/token')?.route).toBe(cors);
  });
});

describe('buildHttpApiEvent (payload format 2.0)', () => {
  const match = () => {
    const found = matchRoute(routes, 'GET', '/api/v1/things/abc');
    if (!found) throw new Error('no match');
    return found;
  };

  it('shapes the request like API Gateway', () => {
    const event = buildHttpApiEvent(
      request({
        url: '/api/v1/things/abc?a=1&b=x%20y&a=2',
        rawHeaders: ['Host', 'h', 'X-Multi', '1', 'x-multi', '2', 'X-Forwarded-Proto', 'https'],
      }),
      match(),
      new Date('2026-11-22T07:44:44.123Z'),
    );

    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'GET /api/v1/things/{thing_id}',
      rawPath: '/api/v1/things/abc',
      rawQueryString: 'a=1&b=x%20y&a=2',
      queryStringParameters: { a: '1,2', b: 'x y' },
      pathParameters: { thing_id: 'abc' },
      headers: { host: 'h', 'x-multi': '1,2', 'x-forwarded-proto': 'http' },
      isBase64Encoded: false,
      requestContext: {
        stage: '$default',
        timeEpoch: Date.parse('2026-11-22T07:44:44.123Z'),
        time: '22/Nov/2026:07:44:44 +0000',
        http: { method: 'GET', path: '/api/v1/things/abc', sourceIp: '127.0.0.1' },
      },
    });
    expect(event.body).toBeUndefined();
    expect(event.queryStringParameters).toBeDefined();
  });

  it('moves cookies out of the headers into the cookies array', () => {
    const event = buildHttpApiEvent(request({ rawHeaders: ['Cookie', 'a=1; b=2', 'Host', 'h'] }), match());

    expect(event.cookies).toEqual(['a=1', 'b=2']);
    expect(event.headers.cookie).toBeUndefined();
  });

  it('passes JSON, text, XML and JavaScript as UTF-8 and everything else as base64', () => {
    const body = Buffer.from('{"é":1}');
    for (const type of [
      'application/json',
      'application/problem+json',
      'text/plain; charset=utf-8',
      'application/xml',
      'application/javascript',
    ]) {
      const event = buildHttpApiEvent(request({ rawHeaders: ['Content-Type', type], body }), match());
      expect(event.isBase64Encoded, type).toBe(false);
      expect(event.body).toBe('{"é":1}');
    }
    for (const rawHeaders of [
      ['Content-Type', 'multipart/form-data; boundary=x'],
      ['Content-Type', 'image/png'],
      [],
    ]) {
      const event = buildHttpApiEvent(request({ rawHeaders, body }), match());
      expect(event.isBase64Encoded).toBe(true);
      expect(Buffer.from(event.body ?? '', 'base64').equals(body)).toBe(true);
    }
  });

  it('gives every request a fresh request id', () => {
    const ids = new Set(
      Array.from({ length: 20 }, () => buildHttpApiEvent(request(), match()).requestContext.requestId),
    );

    expect(ids.size).toBe(20);
  });

  it('leaves out queryStringParameters when there is no query', () => {
    expect(parseQueryString('')).toBeUndefined();
    expect(buildHttpApiEvent(request(), match()).queryStringParameters).toBeUndefined();
  });
});
