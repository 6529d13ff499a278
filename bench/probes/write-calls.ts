import { DynamoDBClient, type TransactWriteItem, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';

/**
 * What floor-write.ts and floor-create.ts share: the floor's client (bench/baseline-handler.ts) and
 * an agent write's transaction as the write plan sends it (lib/records/write-planning/write-plan.ts):
 * the record and its change-log entry, and for a create a check that the business exists and the
 * entity's record count.
 */
export const client = new DynamoDBClient(
  process.env.DYNAMODB_ENDPOINT ? { endpoint: process.env.DYNAMODB_ENDPOINT } : {},
);
export const TableName = process.env.TABLE_NAME ?? '';
const pk = { S: 'floor-write' };

export async function writeRecord(kind: 'change' | 'create'): Promise<void> {
  const now = new Date().toISOString();
  const id = crypto.randomUUID();
  const createOnly: TransactWriteItem[] = [
    {
      ConditionCheck: {
        TableName,
        Key: { pk, sk: { S: 'business' } },
        ConditionExpression: 'attribute_not_exists(gone)',
      },
    },
    {
      Update: {
        TableName,
        Key: { pk, sk: { S: 'count' } },
        UpdateExpression: 'ADD #count :one',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':one': { N: '1' } },
      },
    },
  ];
  await client.send(
    new TransactWriteItemsCommand({
      TransactItems: [
        {
          Put: {
            TableName,
            Item: {
              pk,
              sk: { S: `record#${id}` },
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
              pk,
              sk: { S: `change#${id}` },
              before: { M: { question: { S: 'Opening hours?' } } },
              after: { M: { question: { S: 'What are your opening hours?' } } },
              at: { S: now },
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        ...(kind === 'create' ? createOnly : []),
      ],
    }),
  );
}
