import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { decodeCursor, encodeCursor, keyPart, keyValue } from '#lib/db/cursor.ts';
import { keys } from '#lib/db/keys.ts';
import type { EntityName } from '#lib/records/entities.ts';
import { type RecordView, recordView, type StoredItem } from '#lib/records/record-types.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * A page of one entity's records, in list order (position, then creation), read consistently. Apart
 * from record-reads.ts because it signs cursors: the cursor keys' Secrets Manager client belongs
 * only in the functions that page.
 */
export async function listRecords(
  entity: EntityName,
  businessId: string,
  page: { limit: number; cursor?: string | undefined },
): Promise<{ records: RecordView[]; nextCursor: string | null }> {
  const { gsi1pk } = keys.recordOrder(businessId, entity, null, '', '');
  const record = keys.record(businessId, entity, '');
  const binding = ['records', businessId, entity];
  const startKey = await decodeCursor(
    page.cursor,
    binding,
    z.strictObject({
      pk: keyValue(record.pk),
      sk: keyPart(record.sk),
      gsi1pk: keyValue(gsi1pk),
      gsi1sk: keyPart(''),
    }),
  );
  const result = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :partition',
      ExpressionAttributeValues: { ':partition': gsi1pk },
      Limit: page.limit,
      ...(startKey ? { ExclusiveStartKey: startKey } : {}),
    }),
  );
  return {
    records: (result.Items ?? []).map((item) => recordView(item as StoredItem)),
    nextCursor: await encodeCursor(binding, result.LastEvaluatedKey),
  };
}
