import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';

/** Probe: the floor (bench/baseline-handler.ts) with two GetItems sent side by side instead of one. */
const client = new DynamoDBClient(
  process.env.DYNAMODB_ENDPOINT ? { endpoint: process.env.DYNAMODB_ENDPOINT } : {},
);
const get = (pk: string) =>
  client.send(
    new GetItemCommand({ TableName: process.env.TABLE_NAME, Key: { pk: { S: pk }, sk: { S: 'x' } } }),
  );

export const handler = async () => {
  await Promise.all([get('x'), get('y')]);
  return { statusCode: 200 };
};
