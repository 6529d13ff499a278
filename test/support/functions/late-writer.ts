/**
 * Test-only function (never in the route table, so never bundled or deployed): waits as long as
 * the event asks, then writes one item. It shows what a function may still do after its timeout,
 * counts its invocations in module scope to show warm reuse, and tells what it runs with (its
 * environment's names, memory, and the time left of its timeout).
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { dynamo, tableName } from '#lib/db/client.ts';

let invocations = 0;

export async function handler(event: APIGatewayProxyEventV2, context: Context) {
  invocations += 1;
  const remainingMs = context.getRemainingTimeInMillis();
  const { delayMs, marker } = JSON.parse(event.body ?? '{}') as { delayMs: number; marker: string };
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  await dynamo.send(
    new PutCommand({ TableName: tableName, Item: { pk: `TEST#${marker}`, sk: 'late-write' } }),
  );
  return {
    statusCode: 200,
    body: JSON.stringify({
      invocations,
      function_name: process.env.AWS_LAMBDA_FUNCTION_NAME,
      remaining_ms: remainingMs,
      memory_mb: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
      environment: Object.keys(process.env).sort(),
    }),
  };
}
