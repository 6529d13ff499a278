import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { dynamo, tableName } from '#lib/db/client.ts';
import { invokeRoute } from '../../infra/local/lambda-runner.ts';
import { ROOT_DIR } from '../../infra/local/paths.ts';

const HANDLER = 'test/support/functions/late-writer.ts';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A function of its own for each test, so that each starts cold. Its one write is checked against
 * the role of a deployed function that writes the table (putBlogAutoSchedule's).
 */
const lateWriter = (timeoutSeconds: number) => ({
  operationId: `lateWriter${randomUUID().slice(0, 8)}`,
  handler: HANDLER,
  timeoutSeconds,
  roleOf: 'putBlogAutoSchedule',
});
const event = (delayMs: number, marker: string) =>
  ({ body: JSON.stringify({ delayMs, marker }) }) as unknown as APIGatewayProxyEventV2;
const landed = async (marker: string) =>
  (
    await dynamo.send(
      new GetCommand({ TableName: tableName, Key: { pk: `TEST#${marker}`, sk: 'late-write' } }),
    )
  ).Item !== undefined;

describe('the harness runs each function as Lambda does', () => {
  it('keeps a function warm between invocations (its module scope survives) and counts its DynamoDB calls', async () => {
    const definition = lateWriter(10);

    const first = await invokeRoute(ROOT_DIR, definition, event(0, randomUUID()));
    const second = await invokeRoute(ROOT_DIR, definition, event(0, randomUUID()));

    expect(JSON.parse(first.response.body.toString())).toEqual({
      invocations: 1,
      function_name: definition.operationId,
    });
    expect(JSON.parse(second.response.body.toString()).invocations).toBe(2);
    // The call counter lives in the function's worker and still reaches the harness.
    expect(second.usage).toMatchObject({ calls: 1, operations: ['PutItem'] });
  });

  it('stops a timed-out invocation: what it would have written afterwards never lands, and the next call is cold', async () => {
    const definition = lateWriter(0.5);
    const marker = randomUUID();

    const timedOut = await invokeRoute(ROOT_DIR, definition, event(1_500, marker));
    expect(timedOut.response.statusCode).toBe(503);
    expect(JSON.parse(timedOut.response.body.toString())).toEqual({ message: 'Service Unavailable' });
    await sleep(2_500);
    expect(await landed(marker)).toBe(false);

    const next = await invokeRoute(ROOT_DIR, definition, event(0, randomUUID()));
    expect(JSON.parse(next.response.body.toString()).invocations).toBe(1);
  });

  it('lets the same slow invocation finish and write when its timeout allows it (the control)', async () => {
    const marker = randomUUID();

    const finished = await invokeRoute(ROOT_DIR, lateWriter(10), event(1_500, marker));

    expect(finished.response.statusCode).toBe(200);
    expect(await landed(marker)).toBe(true);
  });
});
