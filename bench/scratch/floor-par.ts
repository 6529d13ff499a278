import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';

const client = new DynamoDBClient(
  process.env.DYNAMODB_ENDPOINT ? { endpoint: process.env.DYNAMODB_ENDPOINT } : {},
);
const get = (k: string) =>
  client.send(
    new GetItemCommand({ TableName: process.env.TABLE_NAME, Key: { pk: { S: k }, sk: { S: 'x' } } }),
  );
export const handler = async () => {
  await Promise.all([get('x'), get('y')]);
  return { statusCode: 200 };
};
