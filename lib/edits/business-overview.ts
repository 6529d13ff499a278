import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { BusinessAccess } from '#lib/auth/business-access.ts';
import type { EditsPrincipal } from '#lib/auth/principal.ts';
import { batchGetAll } from '#lib/db/batch-get.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { COUNT_PREFIX, keys, RECORD_PREFIX } from '#lib/db/keys.ts';
import { queryAll } from '#lib/db/query-all.ts';
import { agentEntities, ENTITY_NAMES, type EntityName, entities } from '#lib/records/entities.ts';
import type { RecordFields } from '#lib/records/record-types.ts';
import { recordView } from '#lib/records/record-view.ts';

/** The businesses the caller holds (owner or editor), with the role and the business's name. */
export async function listClaims(user: EditsPrincipal) {
  const memberships = await queryAll({
    TableName: tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :user',
    ExpressionAttributeValues: { ':user': keys.memberByUser(user.userId, '').gsi1pk },
  });
  const held = memberships.filter((m) => m.role === 'owner' || m.role === 'editor');
  const businesses = await batchGetAll(held.map((m) => keys.business(String(m.business_id))));
  const names = new Map(businesses.map((item) => [String(item.id), String(item.name)]));
  return held
    .filter((m) => names.has(String(m.business_id)))
    .map((m) => ({
      business_id: String(m.business_id),
      name: names.get(String(m.business_id)) ?? '',
      role: m.role as 'owner' | 'editor',
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Name, the caller's role and how many records of each kind the business has. */
export async function businessSummary(access: BusinessAccess) {
  const { businessId } = access;
  const [business, counts] = await Promise.all([
    dynamo.send(new GetCommand({ TableName: tableName, Key: keys.business(businessId) })),
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
  return {
    id: businessId,
    name: String(business.Item?.name ?? ''),
    role: access.role ?? null,
    record_counts: recordCounts,
  };
}

/**
 * Everything the business has, from one Query of its partition (followed across pages past 1 MB):
 * the profile in full, every other record trimmed to id, version, label and updated_at, in list
 * order (position, then creation).
 */
export async function buildSnapshot(businessId: string) {
  const items = await queryAll({
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :records)',
    ExpressionAttributeValues: { ':pk': keys.business(businessId).pk, ':records': RECORD_PREFIX },
    ConsistentRead: true,
  });
  const byEntity = new Map<EntityName, RecordFields[]>(ENTITY_NAMES.map((name) => [name, []]));
  for (const item of items) byEntity.get(item.entity as EntityName)?.push(item);
  const profile = byEntity.get('profile')?.[0];
  const records: Record<string, unknown[]> = {};
  for (const definition of agentEntities) {
    const rows = byEntity.get(definition.name) ?? [];
    rows.sort(
      (a, b) => positionOf(a) - positionOf(b) || String(a.created_at).localeCompare(String(b.created_at)),
    );
    records[definition.name] = rows.map((row) => ({
      record_id: String(row.id),
      version: Number(row.version),
      label: entities[definition.name].label(row),
      updated_at: String(row.updated_at),
    }));
  }
  return { business_id: businessId, profile: profile ? recordView(profile) : null, records };
}

const positionOf = (record: RecordFields) =>
  typeof record.position === 'number' ? record.position : Number.POSITIVE_INFINITY;
