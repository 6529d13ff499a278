import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { readAlongsideAccess } from '#lib/auth/alongside-access.ts';
import type { BusinessAccess } from '#lib/auth/business-access.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import type { ItemReader } from '#lib/db/item-reader.ts';
import { COUNT_PREFIX, keys } from '#lib/db/keys.ts';
import { agentEntities } from '#lib/records/entities.ts';

/**
 * Name, the caller's role and how many records of each kind the business has, read together with
 * the access check that must pass first.
 */
export async function businessSummary(
  check: (reads: ItemReader) => Promise<BusinessAccess>,
  businessId: string,
) {
  const { access, result } = await readAlongsideAccess(check, (reads) => nameAndCounts(businessId, reads));
  return { id: businessId, name: result.name, role: access.role ?? null, record_counts: result.recordCounts };
}

async function nameAndCounts(businessId: string, reads: ItemReader) {
  // The business item is among the access check's keys too: read once, in the check's call.
  const [business, counts] = await Promise.all([
    reads.get(keys.business(businessId)),
    dynamo.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :count)',
        ExpressionAttributeValues: { ':pk': keys.business(businessId).pk, ':count': COUNT_PREFIX },
      }),
    ),
  ]);
  const recordCounts: Record<string, number> = Object.fromEntries(agentEntities.map((d) => [d.name, 0]));
  for (const item of counts.Items ?? [])
    recordCounts[String(item.sk).slice(COUNT_PREFIX.length)] = Number(item.count ?? 0);
  return { name: String(business?.name ?? ''), recordCounts };
}
