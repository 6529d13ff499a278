import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { apiSurfaces, consolePreflightHeaders, consoleResponseHeaders } from '#lib/http/cors.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { baseIndex } from './base-index.ts';
import { type DevConsole, handleConsoleRequest, isConsolePath } from './dev-console.ts';
import { ISSUER_PATH, LOCAL_ISSUER } from './dev-issuer.ts';
import { type DevReviewHost, handleReviewHostRequest, isReviewHostPath } from './dev-review-host.ts';
import { type DevSignIn, isDevSignInPath } from './dev-sign-in.ts';
import { EVENTS_JSON_PATH, EVENTS_PAGE_PATH, eventsJson, eventsPage } from './events/events-page.ts';
import { isLocalBusPath, type LocalEventBus } from './events/local-bus.ts';
import type { LocalEvents } from './events/local-events.ts';
import {
  runScheduleRequest,
  SCHEDULE_RUN_PATH,
  WEBHOOKS_JSON_PATH,
  WEBHOOKS_PAGE_PATH,
  webhooksJson,
  webhooksPage,
} from './events/webhooks-page.ts';
import {
  buildHttpApiEvent,
  MAX_LAMBDA_PAYLOAD_BYTES,
  MAX_REQUEST_BYTES,
  matchRoute,
} from './http-api-event.ts';
import { gatewayError, type HttpResponse, invokeRoute } from './lambda-runner.ts';

/**
 * The local stand-in for API Gateway, the stack's front door: what API Gateway does in AWS (route
 * matching, the body limits, the console API's CORS answers, its own error bodies) and the pages
 * the harness serves beside the functions (the docs page, the console pages, the dev issuer's keys
 * and sign-in). `/openapi.json` is a route like any other (lib/routes/docs.ts). startHarness
 * (harness.ts) builds a Gateway and hands every request to handle().
 */

export { ISSUER_PATH };
export const DYNAMO_CALLS_HEADER = 'x-local-dynamodb-calls';
/** Local only: milliseconds the function's SDK calls waited for their IAM decisions (the bench's figure). */
export const IAM_MS_HEADER = 'x-local-iam-ms';
export const DYNAMO_AUTH_CALLS_HEADER = 'x-local-dynamodb-auth-calls';
export const DYNAMO_CAPACITY_HEADER = 'x-local-dynamodb-capacity';
/** Read and write request units apart (auth included), and the operation's sequential round trips. */
export const DYNAMO_UNITS_HEADER = 'x-local-dynamodb-units';
export const DYNAMO_ROUND_TRIPS_HEADER = 'x-local-dynamodb-round-trips';
/** Sequential round trips of the whole request, the credential check's included. */
export const DYNAMO_ALL_ROUND_TRIPS_HEADER = 'x-local-dynamodb-all-round-trips';
/** The DynamoDB operations the whole request sent, in order (`BatchGetItem,TransactWriteItems`). */
export const DYNAMO_OPERATIONS_HEADER = 'x-local-dynamodb-operations';
/**
 * A request with this header runs in a container of its function whose PHOTO_INLINE_LIMIT_BYTES is
 * the header's value: the bench measures both answers of the photo bytes routes, inline and 303, at
 * every size this way. Local only; a deployed function's limit is not the caller's to choose.
 */
export const PHOTO_INLINE_LIMIT_HEADER = 'x-local-photo-inline-limit-bytes';

export interface Gateway {
  rootDir: string;
  /** The docs page's document: the service's own, with the demo ids as parameter examples. */
  docsOpenApi: string;
  jwks: string;
  baseUrl: string;
  devConsole: DevConsole;
  devSignIn: DevSignIn;
  reviewHost: DevReviewHost;
  consoleOrigins: string[];
  functionTimeoutSeconds: number | undefined;
  /** The local EventBridge bus, and the source of the dev console's events page. */
  bus: LocalEventBus;
  /** The rules, queues and schedules of the templates (the webhooks page, running a schedule now). */
  events: LocalEvents;
}

const require = createRequire(import.meta.url);
const swaggerUiDir = dirname(require.resolve('swagger-ui-dist/package.json'));
const DOCS_OPENAPI_PATH = '/docs/openapi.json';
const DOCS_ASSETS: Record<string, string> = {
  '/docs/swagger-ui.css': 'text/css',
  '/docs/swagger-ui-bundle.js': 'text/javascript',
};

const json = (body: string): HttpResponse => ({
  statusCode: 200,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(body),
});

export async function handle(request: IncomingMessage, gateway: Gateway): Promise<HttpResponse> {
  const body = await readBody(request);
  if (body === 'too-large') {
    // The body was read to its end (or the socket given up on), so say that this connection ends
    // here: a keep-alive client then sends its next request on a new one instead of a dead one.
    const refused = gatewayError(413, 'Request Entity Too Large');
    refused.headers.connection = 'close';
    return refused;
  }
  const url = request.url ?? '/';
  const path = url.split('?')[0] ?? '/';
  const method = request.method ?? 'GET';
  if (isDevSignInPath(path)) {
    return gateway.devSignIn.handle({
      method,
      path,
      query: new URLSearchParams(url.slice(path.length)),
      contentType: request.headers['content-type'],
      body,
    });
  }
  if (isReviewHostPath(path)) {
    return handleReviewHostRequest(
      { method, path, query: new URLSearchParams(url.slice(path.length)) },
      gateway.reviewHost,
    );
  }
  if (isLocalBusPath(path)) {
    const target = request.headers['x-amz-target'];
    return gateway.bus.handle({ method, target: typeof target === 'string' ? target : undefined, body });
  }
  if (method === 'GET' && path === EVENTS_JSON_PATH) return eventsJson(gateway.bus.latest());
  if (method === 'GET' && path === EVENTS_PAGE_PATH) {
    return eventsPage(gateway.bus.latest(), gateway.devConsole.headers);
  }
  if (method === 'GET' && path === WEBHOOKS_JSON_PATH) return webhooksJson(gateway.events);
  if (method === 'GET' && path === WEBHOOKS_PAGE_PATH) {
    return webhooksPage(gateway.events, gateway.devConsole.headers);
  }
  if (path === SCHEDULE_RUN_PATH) {
    return runScheduleRequest({ method, contentType: request.headers['content-type'], body }, gateway.events);
  }
  if (isConsolePath(path)) {
    return handleConsoleRequest(
      { method, path, contentType: request.headers['content-type'], body },
      gateway.devConsole,
    );
  }

  if (method === 'GET') {
    if (path === DOCS_OPENAPI_PATH) return json(gateway.docsOpenApi);
    if (path === `${ISSUER_PATH}/.well-known/jwks.json`) return json(gateway.jwks);
    if (path === `${ISSUER_PATH}/.well-known/openid-configuration`) {
      return json(
        JSON.stringify({
          issuer: LOCAL_ISSUER,
          jwks_uri: `${gateway.baseUrl}${ISSUER_PATH}/.well-known/jwks.json`,
        }),
      );
    }
    if (path === '/health') return json('{"status":"ok"}');
    if (path === '/') return baseIndex(gateway.baseUrl);
    if (path === '/docs' || path === '/docs/') {
      return {
        statusCode: 200,
        headers: { 'content-type': 'text/html; charset=utf-8' },
        body: Buffer.from(DOCS_PAGE),
      };
    }
    const assetType = DOCS_ASSETS[path];
    if (assetType) {
      const file = join(swaggerUiDir, path.slice('/docs/'.length));
      return { statusCode: 200, headers: { 'content-type': assetType }, body: readFileSync(file) };
    }
  }

  const match = matchRoute(routeTable, method, path);
  const origin = request.headers.origin;
  // The console API's CORS configuration answers every other preflight itself (lib/http/cors.ts).
  if (method === 'OPTIONS' && !match) {
    return {
      statusCode: 204,
      headers: consolePreflightHeaders(origin, gateway.consoleOrigins),
      body: Buffer.alloc(0),
    };
  }
  if (!match) return gatewayError(404, 'Not Found');
  const event = buildHttpApiEvent(
    {
      method,
      url,
      rawHeaders: request.rawHeaders,
      body,
      sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
    },
    match,
  );
  if (Buffer.byteLength(JSON.stringify(event)) > MAX_LAMBDA_PAYLOAD_BYTES) {
    return gatewayError(413, 'Request Entity Too Large');
  }
  // Local only: how many DynamoDB calls the operation made, for tests and the bench to check budgets.
  const inlineLimit = request.headers[PHOTO_INLINE_LIMIT_HEADER];
  const {
    response: result,
    usage,
    iamMs,
  } = await invokeRoute(
    gateway.rootDir,
    typeof inlineLimit === 'string'
      ? { ...match.route, environment: { PHOTO_INLINE_LIMIT_BYTES: inlineLimit } }
      : match.route,
    event,
    gateway.functionTimeoutSeconds,
  );
  result.headers[DYNAMO_CALLS_HEADER] = String(usage.calls - usage.authCalls);
  result.headers[DYNAMO_AUTH_CALLS_HEADER] = String(usage.authCalls);
  result.headers[DYNAMO_CAPACITY_HEADER] = String(usage.capacityUnits);
  result.headers[DYNAMO_UNITS_HEADER] = `read=${usage.readUnits}, write=${usage.writeUnits}`;
  result.headers[DYNAMO_ROUND_TRIPS_HEADER] = String(usage.roundTrips - usage.authRoundTrips);
  result.headers[DYNAMO_ALL_ROUND_TRIPS_HEADER] = String(usage.roundTrips);
  result.headers[DYNAMO_OPERATIONS_HEADER] = usage.operations.join(',');
  result.headers[IAM_MS_HEADER] = iamMs.toFixed(3);
  if (apiSurfaces(match.route).includes('console')) {
    Object.assign(result.headers, consoleResponseHeaders(origin, gateway.consoleOrigins));
  }
  return result;
}

/**
 * Read the body, keeping nothing past API Gateway's 10 MB: a larger body is read to its end and
 * dropped (so the client finishes sending and reads the 413), unless it goes on past
 * MAX_DRAINED_BYTES, when the connection is simply cut.
 */
async function readBody(request: IncomingMessage): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_DRAINED_BYTES) {
      request.socket.destroy();
      return 'too-large';
    }
    if (size <= MAX_REQUEST_BYTES) chunks.push(chunk as Buffer);
  }
  return size > MAX_REQUEST_BYTES ? 'too-large' : Buffer.concat(chunks);
}

const MAX_DRAINED_BYTES = 100 * 1024 * 1024;

/** The answer to a request that arrives while the stack is still starting. */
export function notReady(): HttpResponse {
  return {
    statusCode: 503,
    headers: { 'content-type': 'application/json', 'retry-after': '2', connection: 'close' },
    body: Buffer.from(
      JSON.stringify({
        request_id: randomUUID(),
        success: false,
        error: {
          code: 'SERVICE_UNAVAILABLE',
          message: 'The local stack is still starting; retry in a moment',
        },
      }),
    ),
  };
}

export function send(response: ServerResponse, result: HttpResponse): void {
  if (response.headersSent) return;
  // The harness's own answers (docs, the console pages, API Gateway's errors) are not sniffed either.
  response.writeHead(result.statusCode, {
    'x-content-type-options': 'nosniff',
    ...result.headers,
    'content-length': String(result.body.length),
  });
  response.end(result.body);
}

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Business Platform Service API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '${DOCS_OPENAPI_PATH}', dom_id: '#ui', deepLinking: true, persistAuthorization: true, tryItOutEnabled: true, displayRequestDuration: true });</script>
</body></html>`;
