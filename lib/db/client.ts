import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { optionalEnv, requiredEnv } from '#lib/config/env.ts';
import { attachUsageCounter } from '#lib/db/call-counter.ts';

export const tableName = requiredEnv('TABLE_NAME');

/**
 * One client per container. DYNAMODB_ENDPOINT points it at DynamoDB Local; unset in AWS.
 * Short socket timeouts turn a dead dependency into a 503 within the function timeout. The plain
 * client is exported for libraries that take one (Powertools' idempotency store); code of ours
 * uses the document client.
 */
export const dynamoClient = new DynamoDBClient({
  ...(optionalEnv('DYNAMODB_ENDPOINT') ? { endpoint: optionalEnv('DYNAMODB_ENDPOINT') } : {}),
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000 },
});
attachUsageCounter(dynamoClient);

export const dynamo = DynamoDBDocumentClient.from(dynamoClient, {
  marshallOptions: { removeUndefinedValues: true },
});
