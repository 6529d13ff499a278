import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { optionalEnv, requiredEnv } from '#lib/config/env.ts';
import { sdkClientOptions } from '#lib/config/timeouts.ts';
import { attachUsageCounter } from '#lib/db/call-counter.ts';

export const tableName = requiredEnv('TABLE_NAME');

/**
 * One client per container. DYNAMODB_ENDPOINT points it at DynamoDB Local; unset in AWS.
 * Its timeouts and attempts (lib/config/timeouts.ts) end a call to a dead or slow table within
 * the function's timeout, so the caller gets a 503 ErrorResponse, never a gateway timeout.
 */
const baseClient = new DynamoDBClient({
  ...(optionalEnv('DYNAMODB_ENDPOINT') ? { endpoint: optionalEnv('DYNAMODB_ENDPOINT') } : {}),
  ...sdkClientOptions('dynamodb'),
});
attachUsageCounter(baseClient);

export const dynamo = DynamoDBDocumentClient.from(baseClient, {
  marshallOptions: { removeUndefinedValues: true },
});
