import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { decodeCursor, encodeCursor, keyPart, keyValue } from '#lib/db/cursor.ts';
import { keys } from '#lib/db/keys.ts';
import { headerItem, headerView } from '#lib/edits/changeset-store.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * Listing a business's changesets. Apart from review.ts because it signs cursors: the cursor keys'
 * Secrets Manager client belongs only in the functions that page.
 */

/** A business's changesets, newest first, optionally of one status. */
export async function listChangesets(
  businessId: string,
  page: { limit: number; cursor?: string | undefined; status?: string | undefined },
) {
  const order = keys.changesetOrder(businessId, '', '');
  const binding = ['changesets', businessId, page.status ?? null];
  const start = await decodeCursor(
    page.cursor,
    binding,
    z.strictObject({
      pk: keyPart('CHANGESET#'),
      sk: keyValue('CHANGESET'),
      gsi1pk: keyValue(order.gsi1pk),
      gsi1sk: keyPart(''),
    }),
  );
  const result = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ScanIndexForward: false,
      Limit: page.limit,
      ...(page.status
        ? { FilterExpression: '#status = :status', ExpressionAttributeNames: { '#status': 'status' } }
        : {}),
      ExpressionAttributeValues: { ':pk': order.gsi1pk, ...(page.status ? { ':status': page.status } : {}) },
      ...(start ? { ExclusiveStartKey: start } : {}),
    }),
  );
  return {
    changesets: (result.Items ?? []).map((item) => headerView(headerItem.fromItem(item))),
    nextCursor: await encodeCursor(binding, result.LastEvaluatedKey),
  };
}
