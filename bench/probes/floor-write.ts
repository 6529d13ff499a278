import { BatchGetItemCommand, DynamoDBClient, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';

/**
 * Probe: the floor (bench/baseline-handler.ts) doing an agent change's calls with nothing of ours:
 * a BatchGetItem of two keys (the agent key and the record), then one TransactWriteItems of three
 * actions (the record, its change-log entry, a counter), as updateFaq's write plan sends them.
 */
const client = new DynamoDBClient(
  process.env.DYNAMODB_ENDPOINT ? { endpoint: process.env.DYNAMODB_ENDPOINT } : {},
);
const TableName = process.env.TABLE_NAME ?? '';

export const handler = async () => {
  const keys = ['x', 'y'].map((pk) => ({ pk: { S: pk }, sk: { S: 'x' } }));
  await client.send(new BatchGetItemCommand({ RequestItems: { [TableName]: { Keys: keys } } }));
  const now = new Date().toISOString();
  const id = crypto.randomUUID();
  await client.send(
    new TransactWriteItemsCommand({
      TransactItems: [
        {
          Put: {
            TableName,
            Item: {
              pk: { S: 'floor-write' },
              sk: { S: 'record' },
              question: { S: 'What are your opening hours?' },
              answer: { S: 'Monday to Friday, 9 to 5.' },
              version: { N: '1' },
              updated_at: { S: now },
            },
          },
        },
        {
          Put: {
            TableName,
            Item: {
              pk: { S: 'floor-write' },
              sk: { S: `change#${id}` },
              before: { M: { question: { S: 'Opening hours?' } } },
              after: { M: { question: { S: 'What are your opening hours?' } } },
              at: { S: now },
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Update: {
            TableName,
            Key: { pk: { S: 'floor-write' }, sk: { S: 'counter' } },
            UpdateExpression: 'ADD changes :one',
            ExpressionAttributeValues: { ':one': { N: '1' } },
          },
        },
      ],
    }),
  );
  return { statusCode: 200 };
};
