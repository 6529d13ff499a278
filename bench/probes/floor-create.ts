import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { client, TableName, writeRecord } from './write-calls.ts';

/**
 * Probe: the floor (bench/baseline-handler.ts) doing an agent create's calls with nothing of ours:
 * a GetItem (the agent key), then a TransactWriteItems of four actions (write-calls.ts), as
 * createFaq sends them.
 */
export const handler = async () => {
  await client.send(new GetItemCommand({ TableName, Key: { pk: { S: 'x' }, sk: { S: 'x' } } }));
  await writeRecord('create');
  return { statusCode: 200 };
};
