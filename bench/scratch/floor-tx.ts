import { randomUUID } from 'node:crypto';
import { DynamoDBClient, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';

const client = new DynamoDBClient(
  process.env.DYNAMODB_ENDPOINT ? { endpoint: process.env.DYNAMODB_ENDPOINT } : {},
);
export const handler = async () => {
  const TableName = process.env.TABLE_NAME as string;
  const id = randomUUID();
  await client.send(
    new TransactWriteItemsCommand({
      TransactItems: [
        {
          Put: {
            TableName,
            Item: { pk: { S: `BENCH#TX#${id}` }, sk: { S: 'r' }, v: { N: '1' } },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        { Put: { TableName, Item: { pk: { S: `BENCH#TX#${id}` }, sk: { S: 'h' }, v: { N: '1' } } } },
        {
          Update: {
            TableName,
            Key: { pk: { S: 'BENCH#TXC' }, sk: { S: 'c' } },
            UpdateExpression: 'ADD #c :one',
            ConditionExpression: 'attribute_not_exists(#c) OR #c < :max',
            ExpressionAttributeNames: { '#c': 'c' },
            ExpressionAttributeValues: { ':one': { N: '1' }, ':max': { N: '100000' } },
          },
        },
        { Put: { TableName, Item: { pk: { S: `BENCH#TX#${id}` }, sk: { S: 'z' }, v: { N: '1' } } } },
      ],
    }),
  );
  return { statusCode: 200 };
};
