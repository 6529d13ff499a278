import { createServer, type Socket } from 'node:net';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  CLIENT_TIMEOUTS,
  DEFAULT_FUNCTION_TIMEOUT_SECONDS,
  GATEWAY_TIMEOUT_SECONDS,
  MAX_FUNCTION_TIMEOUT_SECONDS,
  sdkClientOptions,
  worstCaseCallMs,
} from '#lib/config/timeouts.ts';
import { routeTable } from '#lib/routes/route-table.ts';

describe('timeouts', () => {
  it('ends every function before API Gateway gives up on it', () => {
    expect(MAX_FUNCTION_TIMEOUT_SECONDS).toBeLessThan(GATEWAY_TIMEOUT_SECONDS);
    expect(DEFAULT_FUNCTION_TIMEOUT_SECONDS).toBeLessThanOrEqual(MAX_FUNCTION_TIMEOUT_SECONDS);
    for (const route of routeTable) {
      expect(route.timeoutSeconds ?? DEFAULT_FUNCTION_TIMEOUT_SECONDS, route.operationId).toBeLessThanOrEqual(
        MAX_FUNCTION_TIMEOUT_SECONDS,
      );
    }
  });

  it('lets one SDK call of any client give up inside the shortest function timeout', () => {
    const shortest = Math.min(
      DEFAULT_FUNCTION_TIMEOUT_SECONDS,
      ...routeTable.map((route) => route.timeoutSeconds ?? DEFAULT_FUNCTION_TIMEOUT_SECONDS),
    );
    for (const [dependency, settings] of Object.entries(CLIENT_TIMEOUTS)) {
      expect(worstCaseCallMs(settings), dependency).toBeLessThan(shortest * 1000);
    }
  });

  it('counts every attempt with its backoff', () => {
    expect(worstCaseCallMs({ connectionTimeout: 1_000, requestTimeout: 3_000, maxAttempts: 3 })).toBe(
      3 * 4_000 + 500 + 1_000,
    );
  });

  it('makes a call fail when its request timeout passes, rather than wait on a silent dependency', async () => {
    // A dependency that accepts the connection and never answers.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const options = sdkClientOptions('dynamodb');
    const client = new DynamoDBClient({
      ...options,
      // The shipped handler settings with a short timeout and one attempt, to keep the test quick.
      requestHandler: { ...options.requestHandler, requestTimeout: 200 },
      maxAttempts: 1,
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    try {
      await expect(client.send(new ListTablesCommand({}))).rejects.toMatchObject({ name: 'TimeoutError' });
    } finally {
      client.destroy();
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});
