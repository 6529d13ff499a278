import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Authenticator } from '#lib/auth/principal.ts';
import { DEADLINE_MARGIN_MS } from '#lib/http/deadline.ts';
import { UnauthorizedError } from '#lib/http/errors.ts';
import { keyReusedError } from '#lib/http/idempotency/keyed-create.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import type { RouteDefinition } from '#lib/http/route.ts';
import { securityEvent } from '#lib/oauth/security-events.ts';
import { SIGNAL_FIELDS } from '#lib/observability/signal-fields.ts';
import { buildHttpApiEvent, matchRoute } from '../../infra/local/http-api-event.ts';

// The metric filters (infra/log-signals.ts) read top-level fields of the JSON lines the functions
// write; these tests capture what the logger writes and check those fields are there.

const route = {
  operationId: 'getThing',
  method: 'GET',
  path: '/api/v1/things',
  handler: 'functions/x/get-thing.ts',
  area: 'x',
  summary: 'test',
  auth: 'agent',
  envelope: 'success',
  successStatus: 200,
  request: {},
  errors: [],
  permissions: { table: 'read' },
} as const satisfies RouteDefinition;

const agent = (authenticate: () => Promise<unknown>) =>
  ({ kind: 'agent', prepare() {}, authenticate }) as Authenticator<unknown>;

// The tests' logger is silent (vitest.config.ts); this file's logs at INFO, as the functions do.
// Set before the logger module loads: each invocation resets the logger to its initial level.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
});

/** Every JSON line written to stdout or stderr while `run` runs. */
async function loggedLines(run: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const written: string[] = [];
  const capture = (chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  };
  // Lambda sends both streams to the function's log group.
  const writes = [
    vi.spyOn(process.stdout, 'write').mockImplementation(capture),
    vi.spyOn(process.stderr, 'write').mockImplementation(capture),
  ];
  try {
    await run();
  } finally {
    for (const write of writes) write.mockRestore();
  }
  return written
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function call(
  authenticate: () => Promise<unknown>,
  operation: () => Promise<unknown>,
  remainingMs = 10_000,
) {
  const handler = httpHandler(route, agent(authenticate), operation as never);
  const match = matchRoute([route], route.method, route.path);
  if (!match) throw new Error('route did not match');
  const event: APIGatewayProxyEventV2 = buildHttpApiEvent(
    {
      method: 'GET',
      url: route.path,
      rawHeaders: ['authorization', 'Bearer agk_x'],
      body: Buffer.alloc(0),
      sourceIp: '127.0.0.1',
    },
    match,
  );
  const deadline = Date.now() + remainingMs;
  const context = {
    functionName: route.operationId,
    getRemainingTimeInMillis: () => deadline - Date.now(),
  } as unknown as Context;
  const invoke = handler as unknown as (e: APIGatewayProxyEventV2, c: Context) => Promise<unknown>;
  return (await invoke(event, context)) as APIGatewayProxyStructuredResultV2;
}

/** An error shaped as the AWS SDK throws it when DynamoDB throttles past its retries. */
const throttled = () => Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });

describe('log lines the metric filters count', () => {
  afterEach(() => vi.restoreAllMocks());

  it('a 503 answer names its cause: a throttled dependency', async () => {
    let status: number | undefined;
    const lines = await loggedLines(async () => {
      status = (
        await call(
          async () => ({}),
          async () => {
            throw throttled();
          },
        )
      ).statusCode;
    });
    expect(status).toBe(503);
    expect(lines).toContainEqual(
      expect.objectContaining({ status: 503, [SIGNAL_FIELDS.unavailableCause]: 'throttled' }),
    );
  });

  it('a 503 answer names its cause: the function deadline', async () => {
    let status: number | undefined;
    const lines = await loggedLines(async () => {
      status = (
        await call(
          async () => ({}),
          () => new Promise(() => undefined),
          DEADLINE_MARGIN_MS + 50,
        )
      ).statusCode;
    });
    expect(status).toBe(503);
    expect(lines).toContainEqual(
      expect.objectContaining({ status: 503, [SIGNAL_FIELDS.unavailableCause]: 'timeout' }),
    );
  });

  it('a refused request carries its status and no 503 cause', async () => {
    const lines = await loggedLines(() =>
      call(
        async () => {
          throw new UnauthorizedError('no', 'Bearer');
        },
        async () => ({}),
      ),
    );
    const rejected = lines.find((line) => line.message === 'Request rejected');
    expect(rejected).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(rejected).not.toHaveProperty(SIGNAL_FIELDS.unavailableCause);
  });

  it('OAuth events: grant_issued is an info line, a reuse a warn line, both with security_event', async () => {
    const lines = await loggedLines(async () => {
      securityEvent('grant_issued', { grant_id: 'g1', client_id: 'c1', user_id: 'u1' });
      securityEvent('refresh_token_reused', { grant_id: 'g1', client_id: 'c1', user_id: 'u1' });
    });
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'INFO',
        [SIGNAL_FIELDS.securityEvent]: 'grant_issued',
        grant_id: 'g1',
      }),
      expect.objectContaining({ level: 'WARN', [SIGNAL_FIELDS.securityEvent]: 'refresh_token_reused' }),
    ]);
  });

  it('an Idempotency-Key reused with another body is logged as a conflict', async () => {
    const lines = await loggedLines(async () => {
      keyReusedError();
    });
    expect(lines).toContainEqual(
      expect.objectContaining({ [SIGNAL_FIELDS.idempotencyConflict]: 'key_reused' }),
    );
  });
});
