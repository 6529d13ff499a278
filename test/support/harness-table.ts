import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inject, onTestFinished } from 'vitest';
import { LOCAL_AWS } from '../../infra/local/emulators.ts';

/**
 * The test harness's table, with the document client production uses: for what no operation
 * shows (a TTL attribute) and for states a test cannot wait for (an expiry a day away). Closed
 * when the test ends.
 */
export function harnessTable() {
  const harness = inject('harness');
  const db = DynamoDBDocumentClient.from(
    new DynamoDBClient({ ...LOCAL_AWS, endpoint: harness.endpoints.dynamodb }),
  );
  onTestFinished(() => db.destroy());
  return { db, tableName: harness.tableName };
}
