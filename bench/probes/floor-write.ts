import { BatchGetItemCommand } from '@aws-sdk/client-dynamodb';
import { client, TableName, writeRecord } from './write-calls.ts';

/**
 * Probe: the floor (bench/baseline-handler.ts) doing an agent change's calls with nothing of ours:
 * a BatchGetItem of two keys (the agent key and the record), then a TransactWriteItems of two
 * actions (write-calls.ts), as updateFaq sends them.
 */
export const handler = async () => {
  const keys = ['x', 'y'].map((pk) => ({ pk: { S: pk }, sk: { S: 'x' } }));
  await client.send(new BatchGetItemCommand({ RequestItems: { [TableName]: { Keys: keys } } }));
  await writeRecord('change');
  return { statusCode: 200 };
};
