import { BatchGetItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** Probe: the floor (bench/baseline-handler.ts) reading the same two keys as floor-two-gets in one BatchGetItem. */
const client = new DynamoDBClient(
  process.env.DYNAMODB_ENDPOINT ? { endpoint: process.env.DYNAMODB_ENDPOINT } : {},
);

export const handler = async () => {
  const keys = ['x', 'y'].map((pk) => ({ pk: { S: pk }, sk: { S: 'x' } }));
  await client.send(
    new BatchGetItemCommand({ RequestItems: { [process.env.TABLE_NAME ?? '']: { Keys: keys } } }),
  );
  return { statusCode: 200 };
};
