import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';

/** The floor our functions are measured against: a bundled handler that makes one DynamoDB call. */
const client = new DynamoDBClient(
  process.env.DYNAMODB_ENDPOINT ? { endpoint: process.env.DYNAMODB_ENDPOINT } : {},
);

export const handler = async () => {
  await client.send(
    new GetItemCommand({ TableName: process.env.TABLE_NAME, Key: { pk: { S: 'x' }, sk: { S: 'x' } } }),
  );
  return { statusCode: 200 };
};
