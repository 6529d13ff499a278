import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { dynamo, tableName } from '#lib/db/client.ts';
import { functionConfigurations } from '../../infra/local/function-configuration.ts';
import { localTemplates } from '../../infra/local/iam/template-cache.ts';
import { invokeRoute } from '../../infra/local/lambda-runner.ts';
import { ROOT_DIR } from '../../infra/local/paths.ts';

const HANDLER = 'test/support/functions/late-writer.ts';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A function of its own for each test, so that each starts cold. It runs with the role and
 * configuration of a deployed function that writes the table (putBlogAutoSchedule's); each test
 * gives the timeout.
 */
const lateWriter = () => ({
  operationId: `lateWriter${randomUUID().slice(0, 8)}`,
  handler: HANDLER,
  deployedAs: 'putBlogAutoSchedule',
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
    const definition = lateWriter();

    const first = await invokeRoute(ROOT_DIR, definition, event(0, randomUUID()));
    const second = await invokeRoute(ROOT_DIR, definition, event(0, randomUUID()));

    expect(JSON.parse(first.response.body.toString())).toMatchObject({
      invocations: 1,
      function_name: definition.operationId,
    });
    expect(JSON.parse(second.response.body.toString()).invocations).toBe(2);
    // The call counter lives in the function's worker and still reaches the harness.
    expect(second.usage).toMatchObject({ calls: 1, operations: ['PutItem'] });
  });

  it('runs a function with its template’s environment, timeout and memory, and none of the harness’s other settings', async () => {
    const { templates } = await localTemplates();
    const deployed = functionConfigurations(templates).get('putBlogAutoSchedule');
    const answer = JSON.parse(
      (await invokeRoute(ROOT_DIR, lateWriter(), event(0, randomUUID()))).response.body.toString(),
    );

    expect(answer.memory_mb).toBe(String(deployed?.memoryMb));
    expect(answer.remaining_ms).toBeGreaterThan(((deployed?.timeoutSeconds ?? 0) - 2) * 1000);
    expect(answer.remaining_ms).toBeLessThanOrEqual((deployed?.timeoutSeconds ?? 0) * 1000);
    // Its template's variables, with the user pool's stood in for by the dev issuer's …
    expect(answer.environment).toEqual(expect.arrayContaining(['TABLE_NAME', 'JWT_ISSUER', 'JWKS_URL']));
    // … and not what other functions' templates set (this process has them all).
    expect(process.env.SES_SENDER).toBeDefined();
    for (const other of ['SES_SENDER', 'INTERNAL_API_KEYS', 'CURSOR_SECRET', 'OAUTH_ISSUER', 'PHOTOS_BUCKET'])
      expect(answer.environment).not.toContain(other);
  });

  it('fails to initialise a function whose template lacks a variable its code requires, as it fails deployed', async () => {
    // The Pre Token Generation trigger's template gives no TABLE_NAME; the late writer's code needs it.
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const { response } = await invokeRoute(
        ROOT_DIR,
        { ...lateWriter(), deployedAs: 'PreTokenGeneration' },
        event(0, randomUUID()),
      );
      expect(response.statusCode).toBe(500);
      expect(JSON.parse(response.body.toString())).toEqual({ message: 'Internal Server Error' });
      expect(logged.mock.calls.map((args) => args.map(String).join(' ')).join('\n')).toMatch(
        /failed to initialise:.*TABLE_NAME/s,
      );
    } finally {
      logged.mockRestore();
    }
  });

  it('stops a timed-out invocation: what it would have written afterwards never lands, and the next call is cold', async () => {
    const definition = lateWriter();
    const marker = randomUUID();

    const timedOut = await invokeRoute(ROOT_DIR, definition, event(1_500, marker), 0.5);
    expect(timedOut.response.statusCode).toBe(503);
    expect(JSON.parse(timedOut.response.body.toString())).toEqual({ message: 'Service Unavailable' });
    await sleep(2_500);
    expect(await landed(marker)).toBe(false);

    const next = await invokeRoute(ROOT_DIR, definition, event(0, randomUUID()), 0.5);
    expect(JSON.parse(next.response.body.toString()).invocations).toBe(1);
  });

  it('lets the same slow invocation finish and write when its timeout allows it (the control)', async () => {
    const marker = randomUUID();

    const finished = await invokeRoute(ROOT_DIR, lateWriter(), event(1_500, marker));

    expect(finished.response.statusCode).toBe(200);
    expect(await landed(marker)).toBe(true);
  });
});
