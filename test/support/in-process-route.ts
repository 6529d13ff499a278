import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { RouteDefinition } from '#lib/http/route.ts';
import { buildHttpApiEvent, matchRoute } from '../../infra/local/http-api-event.ts';
import { runAsFunction } from './in-process-iam.ts';

/**
 * A route's own handler run in this process, with the event the harness would build: for what only
 * this process can watch (an SDK middleware on lib/'s clients, the logger), through the real
 * pipeline. The harness runs each function in a worker of its own, out of a test's reach.
 */
export interface InProcessRequest {
  method?: string;
  /** Path and query, as the harness receives them. */
  url: string;
  headers?: Record<string, string>;
  json?: unknown;
  /** A form body (application/x-www-form-urlencoded), as the OAuth endpoints take. */
  form?: Record<string, string>;
}

export interface InProcessAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export async function callInProcess(
  route: RouteDefinition,
  request: InProcessRequest,
): Promise<InProcessAnswer> {
  const method = request.method ?? route.method;
  const match = matchRoute([route], method, request.url.split('?')[0] ?? '');
  if (!match) throw new Error(`${route.operationId} does not match ${method} ${request.url}`);
  const headers = {
    ...request.headers,
    ...(request.json === undefined ? {} : { 'content-type': 'application/json' }),
    ...(request.form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
  };
  const body =
    request.form !== undefined
      ? new URLSearchParams(request.form).toString()
      : request.json === undefined
        ? ''
        : JSON.stringify(request.json);
  const event: APIGatewayProxyEventV2 = buildHttpApiEvent(
    {
      method,
      url: request.url,
      rawHeaders: Object.entries(headers).flat(),
      body: Buffer.from(body),
      sourceIp: '127.0.0.1',
    },
    match,
  );
  const { handler } = (await import(/* @vite-ignore */ `../../${route.handler}`)) as { handler: unknown };
  const context = {
    getRemainingTimeInMillis: () => 10_000,
    functionName: route.operationId,
  } as unknown as Context;
  const invoke = handler as (e: APIGatewayProxyEventV2, c: Context) => Promise<unknown>;
  // Its SDK calls are checked against its role, as the harness checks them (in-process-iam.ts).
  const result = (await runAsFunction(route.operationId, () =>
    invoke(event, context),
  )) as APIGatewayProxyStructuredResultV2;
  return {
    status: result.statusCode ?? 200,
    headers: Object.fromEntries(
      Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)]),
    ),
    body: parsed(result.body),
  };
}

function parsed(body: string | undefined): unknown {
  if (!body) return null;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}
