import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { RouteDefinition } from '#lib/http/route.ts';
import { MAX_LAMBDA_PAYLOAD_BYTES } from './http-api-event.ts';

type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;

export interface HttpResponse {
  statusCode: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

const DEFAULT_TIMEOUT_SECONDS = 10;
const loaded = new Map<string, Promise<LambdaHandler>>();

/** Import a handler module once, like a warm Lambda container keeps it. */
export function loadHandler(rootDir: string, handlerFile: string): Promise<LambdaHandler> {
  let handler = loaded.get(handlerFile);
  if (!handler) {
    handler = import(pathToFileURL(resolve(rootDir, handlerFile)).href).then(
      (module: { handler?: unknown }) => {
        if (typeof module.handler !== 'function') throw new Error(`${handlerFile} does not export a handler`);
        return module.handler as LambdaHandler;
      },
    );
    loaded.set(handlerFile, handler);
  }
  return handler;
}

/**
 * Invoke a route's handler with a Lambda-like context and its timeout, then shape the result the
 * way API Gateway does for payload 2.0: what the function throws becomes a bare 500, a timeout a
 * 503, and a response over Lambda's 6 MB payload limit a 502. As in Lambda, loading the module
 * (the init phase) does not count against the invocation's timeout.
 */
export async function invokeRoute(
  rootDir: string,
  route: RouteDefinition,
  event: APIGatewayProxyEventV2,
  timeoutSeconds = route.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
) {
  const timeoutMs = timeoutSeconds * 1000;
  let deadline = Date.now() + timeoutMs;
  const context: Context = {
    callbackWaitsForEmptyEventLoop: false,
    functionName: route.operationId,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${route.operationId}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${route.operationId}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
  let timer: NodeJS.Timeout | undefined;
  try {
    const handler = await loadHandler(rootDir, route.handler);
    deadline = Date.now() + timeoutMs;
    const timedOut = new Promise<'timeout'>((resolveTimeout) => {
      timer = setTimeout(() => resolveTimeout('timeout'), timeoutMs);
    });
    const result = await Promise.race([handler(event, context), timedOut]);
    if (result === 'timeout') return gatewayError(503, 'Service Unavailable');
    return toHttpResponse(result);
  } catch (error) {
    console.error(`[harness] ${route.operationId} failed:`, error);
    return gatewayError(500, 'Internal Server Error');
  } finally {
    clearTimeout(timer);
  }
}

/** Payload 2.0 response rules: a result without statusCode is a 200 with the result as JSON. */
export function toHttpResponse(result: unknown): HttpResponse {
  if (JSON.stringify(result ?? null).length > MAX_LAMBDA_PAYLOAD_BYTES)
    return gatewayError(502, 'Internal Server Error');
  if (result && typeof result === 'object' && 'statusCode' in result) {
    const { statusCode, headers, cookies, body, isBase64Encoded } = result as {
      statusCode: number;
      headers?: Record<string, string | number | boolean>;
      cookies?: string[];
      body?: string;
      isBase64Encoded?: boolean;
    };
    const outHeaders: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(headers ?? {})) outHeaders[name.toLowerCase()] = String(value);
    if (cookies?.length) outHeaders['set-cookie'] = cookies;
    const bytes =
      body === undefined ? Buffer.alloc(0) : Buffer.from(body, isBase64Encoded ? 'base64' : 'utf8');
    return { statusCode, headers: outHeaders, body: bytes };
  }
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify(result ?? null)),
  };
}

/** The bare `{"message": …}` bodies API Gateway itself answers with. */
export function gatewayError(statusCode: number, message: string): HttpResponse {
  return {
    statusCode,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ message })),
  };
}
