import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Authenticator } from '#lib/auth/principal.ts';
import { EARLY_READ_CHANNEL, type EarlyRead, type EarlyReadStart } from '#lib/http/early-read.ts';
import { NotFoundError, UnauthorizedError } from '#lib/http/errors.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import type { RouteDefinition } from '#lib/http/route.ts';
import * as z from '#lib/validation/zod.ts';
import { buildHttpApiEvent, matchRoute } from '../../infra/local/http-api-event.ts';

// A unit test of the pipeline alone: the authenticator and the read are stubs, the events are real.
const route = {
  operationId: 'getThing',
  method: 'GET',
  path: '/api/v1/things/{thing_id}',
  handler: 'functions/x/get-thing.ts',
  area: 'x',
  summary: 'test',
  auth: 'console',
  envelope: 'success',
  successStatus: 200,
  request: {
    params: z.strictObject({ thing_id: z.uuid() }),
    query: z.strictObject({ size: z._default(z.coerce.number(), 5) }),
  },
  errors: [404],
  permissions: { table: 'read' },
} as const satisfies RouteDefinition;

const THING = '0b8a4f2e-4c1d-4f7e-9a3b-2c1d0e9f8a7b';

/**
 * Authenticates `Bearer good` once `settle` is called, so a test sees what started before; keeps
 * the per-request object it was given in `shared`.
 */
function gatedAuth(shared: unknown[] = []) {
  let settle: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const authenticator: Authenticator<{ name: string }> = {
    kind: 'console',
    prepare() {},
    async authenticate(headers, request) {
      shared.push(request?.shared);
      await gate;
      if (headers.authorization !== 'Bearer good') throw new UnauthorizedError('no', 'Bearer realm="test"');
      return { name: 'tester' };
    },
  };
  return { authenticator, settle };
}

async function call(
  earlyRead: EarlyRead<typeof route, string>,
  {
    url = `/api/v1/things/${THING}`,
    auth = 'Bearer good',
    onRead = () => {},
    authShared = [] as unknown[],
  } = {},
) {
  const { authenticator, settle } = gatedAuth(authShared);
  let early: Promise<string> | undefined;
  const handler = httpHandler<typeof route, { name: string }, string>(
    route,
    authenticator,
    async (input) => {
      early = input.early;
      return { data: await (input.early ?? 'read by the operation') };
    },
    {
      earlyRead: (request) => {
        onRead();
        return earlyRead(request);
      },
    },
  );
  const match = matchRoute([route], 'GET', url.split('?')[0] ?? '');
  if (!match) throw new Error('route did not match');
  const event: APIGatewayProxyEventV2 = buildHttpApiEvent(
    { method: 'GET', url, rawHeaders: ['Authorization', auth], body: Buffer.alloc(0), sourceIp: '127.0.0.1' },
    match,
  );
  const context = { getRemainingTimeInMillis: () => 10_000, functionName: 'getThing' } as unknown as Context;
  const invoke = handler as unknown as (e: APIGatewayProxyEventV2, c: Context) => Promise<unknown>;
  const answer = invoke(event, context) as Promise<APIGatewayProxyStructuredResultV2>;
  await new Promise((resolve) => setImmediate(resolve));
  settle();
  const result = await answer;
  return { status: result.statusCode, json: JSON.parse(result.body ?? 'null'), early };
}

describe('httpHandler with an early read', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeAll(() => process.on('unhandledRejection', onUnhandled));
  afterAll(() => process.off('unhandledRejection', onUnhandled));
  afterEach(() => {
    expect(unhandled.splice(0)).toEqual([]);
  });

  it('starts the read with the validated path and query before authentication has answered', async () => {
    let readStartedBeforeAuth = false;
    const seen: unknown[] = [];
    const result = await call(
      async (request) => {
        seen.push(request.params, request.query, request.headers.authorization);
        return 'read early';
      },
      { url: `/api/v1/things/${THING}?size=7`, onRead: () => (readStartedBeforeAuth = true) },
    );

    expect(readStartedBeforeAuth).toBe(true);
    expect(seen).toEqual([{ thing_id: THING }, { size: 7 }, 'Bearer good']);
    expect(result.status).toBe(200);
    expect(result.json.data).toBe('read early');
  });

  it('gives the read and the credential check one object of the request (their reads go out together)', async () => {
    const readShared: unknown[] = [];
    const authShared: unknown[] = [];
    const read = async (request: { shared: object }) => {
      readShared.push(request.shared);
      return 'read early';
    };

    await call(read, { authShared });
    await call(read, { authShared });

    expect(readShared).toHaveLength(2);
    expect(authShared).toHaveLength(2);
    // The same object, not an equal one: a reader is found by the object's identity.
    expect(authShared[0]).toBe(readShared[0]);
    expect(authShared[1]).toBe(readShared[1]);
    expect(readShared[0]).not.toBe(readShared[1]);
  });

  it('starts nothing when the path or query does not validate: 401 still comes before 422', async () => {
    let reads = 0;
    const read = async () => {
      reads += 1;
      return 'never';
    };

    expect((await call(read, { url: '/api/v1/things/nope', auth: 'Bearer bad' })).status).toBe(401);
    expect((await call(read, { url: '/api/v1/things/nope' })).status).toBe(422);
    expect((await call(read, { url: `/api/v1/things/${THING}?size=x` })).status).toBe(422);
    expect((await call(read, { url: `/api/v1/things/${THING}?other=1` })).status).toBe(422);
    expect(reads).toBe(0);
  });

  it('answers a refused caller 401, never what the read met, and leaves no unhandled rejection', async () => {
    const result = await call(
      async () => {
        throw new NotFoundError('No thing here');
      },
      { auth: 'Bearer bad' },
    );
    await new Promise((resolve) => setTimeout(resolve, 10));

    expect(result.status).toBe(401);
    expect(result.json.error.message).toBe('no');
  });

  it("reports the read's error once the caller has passed, as the operation's own", async () => {
    const result = await call(async () => {
      throw new NotFoundError('No thing here');
    });

    expect(result.status).toBe(404);
    expect(result.json.error.message).toBe('No thing here');
  });

  it('lets the operation read by itself when the early read declines', async () => {
    const result = await call(() => undefined);

    expect(result.early).toBeUndefined();
    expect(result.json.data).toBe('read by the operation');
  });

  it('runs the read through a subscriber of the early-read channel, when there is one', async () => {
    const marker = new AsyncLocalStorage<string>();
    const wrap = (message: unknown) => {
      (message as EarlyReadStart).run = (read) => marker.run('inside', read);
    };
    subscribe(EARLY_READ_CHANNEL, wrap);
    try {
      const result = await call(async () => `read ${marker.getStore() ?? 'outside'}`);
      expect(result.json.data).toBe('read inside');
    } finally {
      unsubscribe(EARLY_READ_CHANNEL, wrap);
    }
    expect((await call(async () => `read ${marker.getStore() ?? 'outside'}`)).json.data).toBe('read outside');
  });
});
