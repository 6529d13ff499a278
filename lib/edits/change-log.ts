import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { readAlongsideAccess } from '#lib/auth/alongside-access.ts';
import { assertHoldsBusiness } from '#lib/auth/business-access.ts';
import type { EditsPrincipal } from '#lib/auth/principal.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { decodeCursor, encodeCursor, keyPart, keyValue } from '#lib/db/cursor.ts';
import { HISTORY_PREFIX, keys } from '#lib/db/keys.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * Reading the Change History a page at a time, for the edits API and the tool server. Apart from
 * the other reads because it signs cursors: the cursor keys' Secrets Manager client belongs only
 * in the functions that page.
 */

/** A page of the Change History of a business the caller holds, newest first. */
export async function readChangeLog(
  principal: EditsPrincipal,
  businessId: string,
  page: { limit: number; cursor?: string | undefined },
) {
  const { result } = await readAlongsideAccess(
    (reads) => assertHoldsBusiness(principal, businessId, reads),
    () => listChangeLog(businessId, page),
  );
  return result;
}

/** The Change History, newest first, a page at a time. */
async function listChangeLog(businessId: string, page: { limit: number; cursor?: string | undefined }) {
  const { pk } = keys.business(businessId);
  const binding = ['change-log', businessId];
  const start = await decodeCursor(
    page.cursor,
    binding,
    z.strictObject({ pk: keyValue(pk), sk: keyPart(HISTORY_PREFIX) }),
  );
  const result = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :history)',
      ExpressionAttributeValues: { ':pk': pk, ':history': HISTORY_PREFIX },
      ScanIndexForward: false,
      Limit: page.limit,
      ...(start ? { ExclusiveStartKey: start } : {}),
    }),
  );
  const entries = (result.Items ?? []).map(({ pk: _pk, sk: _sk, ...entry }) => entry);
  return { entries, nextCursor: await encodeCursor(binding, result.LastEvaluatedKey) };
}
