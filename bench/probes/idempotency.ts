import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * Probe: Powertools idempotency on top of the DynamoDB client (the creating POSTs,
 * lib/http/idempotency/response-store.ts).
 */
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const parts = [IdempotencyConfig, makeIdempotent, DynamoDBPersistenceLayer];
export const handler = async () => ({ statusCode: 200, body: `${typeof client.send} ${parts.length}` });
