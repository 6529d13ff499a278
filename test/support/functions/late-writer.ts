/**
 * Test-only function (never in the route table, so never bundled or deployed): waits as long as
 * the event asks, then writes one item. It shows what a function may still do after its timeout,
 * and counts its invocations in module scope to show warm reuse.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { dynamo, tableName } from '#lib/db/client.ts';

let invocations = 0;

export async function handler(event: APIGatewayProxyEventV2) {
  invocations += 1;
  const { delayMs, marker } = JSON.parse(event.body ?? '{}') as { delayMs: number; marker: string };
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  await dynamo.send(
    new PutCommand({ TableName: tableName, Item: { pk: `TEST#${marker}`, sk: 'late-write' } }),
  );
  return {
    statusCode: 200,
    body: JSON.stringify({ invocations, function_name: process.env.AWS_LAMBDA_FUNCTION_NAME }),
  };
}
