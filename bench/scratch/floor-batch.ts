import { BatchGetItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';

const client = new DynamoDBClient(
  process.env.DYNAMODB_ENDPOINT ? { endpoint: process.env.DYNAMODB_ENDPOINT } : {},
);
export const handler = async () => {
  const t = process.env.TABLE_NAME as string;
  await client.send(
    new BatchGetItemCommand({
      RequestItems: {
        [t]: {
          Keys: [
            { pk: { S: 'x' }, sk: { S: 'x' } },
            { pk: { S: 'y' }, sk: { S: 'x' } },
          ],
        },
      },
    }),
  );
  return { statusCode: 200 };
};
