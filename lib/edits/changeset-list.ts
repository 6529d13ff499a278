import { tableName } from '#lib/db/client.ts';
import { decodeCursor, encodeCursor, keyPart, keyValue } from '#lib/db/cursor.ts';
import { queryFilledPage } from '#lib/db/filled-page.ts';
import { keys } from '#lib/db/keys.ts';
import { type ChangesetStatus, headerItem, headerView, storedStatuses } from '#lib/edits/changeset-store.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * Listing a business's changesets. Apart from review.ts because it signs cursors: the cursor keys'
 * Secrets Manager client belongs only in the functions that page.
 */

/**
 * A business's changesets, newest first, optionally of one status: a page is full unless the list
 * has ended (queryFilledPage: the status is a filter on the business's changesets in gsi1, so a
 * page may take more than one Query when few of them match).
 */
export async function listChangesets(
  businessId: string,
  page: { limit: number; cursor?: string | undefined; status?: ChangesetStatus | undefined },
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
  const statuses = page.status ? storedStatuses(page.status) : [];
  const statusValues = Object.fromEntries(statuses.map((status, i) => [`:status${i}`, status]));
  const { items, lastKey } = await queryFilledPage(
    {
      TableName: tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ScanIndexForward: false,
      ...(page.status
        ? {
            FilterExpression: `#status IN (${Object.keys(statusValues).join(', ')})`,
            ExpressionAttributeNames: { '#status': 'status' },
          }
        : {}),
      ExpressionAttributeValues: { ':pk': order.gsi1pk, ...statusValues },
    },
    { limit: page.limit, start },
  );
  return {
    changesets: items.map((item) => headerView(headerItem.fromItem(item))),
    nextCursor: await encodeCursor(binding, lastKey),
  };
}
