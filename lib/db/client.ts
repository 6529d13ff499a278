import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { optionalEnv, requiredEnv } from '#lib/config/env.ts';
import { attachUsageCounter } from '#lib/db/call-counter.ts';

export const tableName = requiredEnv('TABLE_NAME');

/**
 * One client per container. DYNAMODB_ENDPOINT points it at DynamoDB Local; unset in AWS.
 * Short socket timeouts turn a dead dependency into a 503 within the function timeout.
 */
const baseClient = new DynamoDBClient({
  ...(optionalEnv('DYNAMODB_ENDPOINT') ? { endpoint: optionalEnv('DYNAMODB_ENDPOINT') } : {}),
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000 },
});
attachUsageCounter(baseClient);

export const dynamo = DynamoDBDocumentClient.from(baseClient, {
  marshallOptions: { removeUndefinedValues: true },
});
