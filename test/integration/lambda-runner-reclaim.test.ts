import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { expect, it } from 'vitest';
import { ROOT_DIR } from '../../infra/local/paths.ts';

/**
 * One warm function at most (LOCAL_MAX_WARM_FUNCTIONS, read when the runner loads, so it is set
 * before this file imports it): a second function reclaims the first's worker once that one is
 * idle, and not before.
 */
process.env.LOCAL_MAX_WARM_FUNCTIONS = '1';
const { invokeRoute } = await import('../../infra/local/lambda-runner.ts');

const lateWriter = () => ({
  operationId: `lateWriter${randomUUID().slice(0, 8)}`,
  handler: 'test/support/functions/late-writer.ts',
  deployedAs: 'putBlogAutoSchedule',
});
const event = () =>
  ({ body: JSON.stringify({ delayMs: 0, marker: randomUUID() }) }) as unknown as APIGatewayProxyEventV2;

it('never reclaims a function still loading its module: two cold functions started together both answer', async () => {
  const [first, second] = await Promise.all([
    invokeRoute(ROOT_DIR, lateWriter(), event()),
    invokeRoute(ROOT_DIR, lateWriter(), event()),
  ]);

  expect(first.response.statusCode).toBe(200);
  expect(second.response.statusCode).toBe(200);
});

it('reclaims an idle one: its next invocation is cold', async () => {
  const reclaimed = lateWriter();
  await invokeRoute(ROOT_DIR, reclaimed, event());

  await invokeRoute(ROOT_DIR, lateWriter(), event());
  const again = await invokeRoute(ROOT_DIR, reclaimed, event());

  expect(JSON.parse(again.response.body.toString()).invocations).toBe(1);
});
