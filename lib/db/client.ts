import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { optionalEnv, requiredEnv } from '#lib/config/env.ts';
import { sdkClientOptions } from '#lib/config/timeouts.ts';

export const tableName = requiredEnv('TABLE_NAME');

/**
 * One client per container. DYNAMODB_ENDPOINT points it at DynamoDB Local; unset in AWS.
 * Its timeouts and attempts (lib/config/timeouts.ts) end a call to a dead or slow table within
 * the function's timeout, so the caller gets a 503 ErrorResponse, never a gateway timeout. The
 * plain client is exported for libraries that take one (Powertools' idempotency store); code of
 * ours uses the document client.
 */
export const dynamoClient = new DynamoDBClient({
  ...(optionalEnv('DYNAMODB_ENDPOINT') ? { endpoint: optionalEnv('DYNAMODB_ENDPOINT') } : {}),
  ...sdkClientOptions('dynamodb'),
  // Local tests of lost answers (test/integration/idempotency-lost-answer.test.ts): a shorter
  // request timeout, so the withheld answer fails the call quickly.
  ...(optionalEnv('DYNAMODB_REQUEST_TIMEOUT_MS')
    ? {
        requestHandler: {
          ...sdkClientOptions('dynamodb').requestHandler,
          requestTimeout: Number(optionalEnv('DYNAMODB_REQUEST_TIMEOUT_MS')),
        },
      }
    : {}),
});

export const dynamo = DynamoDBDocumentClient.from(dynamoClient, {
  marshallOptions: { removeUndefinedValues: true },
});
