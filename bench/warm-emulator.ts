import {
  BatchGetItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  type TransactWriteItem,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import type { HarnessInfo } from '../infra/local/harness-process.ts';

/**
 * Rounds of the warm-up. DynamoDB Local is a JVM: its request paths reach a steady speed only after
 * a few dozen of each (on a 2-core machine one transaction of 99 actions took ~370 ms the first time,
 * ~110 after 10 and ~50–80 after 30). DynamoDB is never cold, so the bench warms the emulator
 * before it measures anything: otherwise the first figures of a run time the emulator's JIT, not
 * our functions (the creating POSTs' first call is a transaction, and so are the edits API's writes).
 */
export const EMULATOR_WARM_UP_ROUNDS = 40;

/** One item per action: 33 × (conditional update, put with index keys, update) fills a transaction. */
const ITEMS_PER_TRANSACTION = 33;

/** Send the kinds of request the functions send, in a partition of its own, until the emulator is warm. */
export async function warmDynamoDbLocal(harness: HarnessInfo): Promise<void> {
  const client = new DynamoDBClient({
    endpoint: harness.endpoints.dynamodb,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  const TableName = harness.tableName;
  const key = (kind: string, i: number) => ({ pk: { S: 'BENCH#WARM-UP' }, sk: { S: `${kind}#${i}` } });
  for (let i = 0; i < ITEMS_PER_TRANSACTION; i++) {
    await client.send(new PutItemCommand({ TableName, Item: { ...key('RECORD', i), version: { N: '0' } } }));
  }
  for (let round = 0; round < EMULATOR_WARM_UP_ROUNDS; round++) {
    await client.send(
      new TransactWriteItemsCommand({
        TransactItems: Array.from({ length: ITEMS_PER_TRANSACTION }, (_, i): TransactWriteItem[] => [
          {
            Update: {
              TableName,
              Key: key('RECORD', i),
              UpdateExpression: 'SET version = :next',
              ConditionExpression: 'version = :current',
              ExpressionAttributeValues: {
                ':current': { N: String(round) },
                ':next': { N: String(round + 1) },
              },
            },
          },
          {
            Put: {
              TableName,
              Item: {
                ...key(`WARM_UP_HISTORY#${round}`, i),
                gsi1pk: { S: 'BENCH#WARM-UP' },
                gsi1sk: { S: `${round}#${i}` },
                body: { S: 'x'.repeat(200) },
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Update: {
              TableName,
              Key: key('ITEM', i),
              UpdateExpression: 'SET round_applied = :round',
              ExpressionAttributeValues: { ':round': { N: String(round) } },
            },
          },
        ]).flat(),
      }),
    );
    await client.send(new GetItemCommand({ TableName, Key: key('RECORD', round % ITEMS_PER_TRANSACTION) }));
    await client.send(
      new BatchGetItemCommand({
        RequestItems: { [TableName]: { Keys: [key('RECORD', 0), key('ITEM', 0), key('RECORD', 1)] } },
      }),
    );
    await client.send(
      new QueryCommand({
        TableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: 'BENCH#WARM-UP' } },
        Limit: 25,
      }),
    );
  }
  client.destroy();
}
