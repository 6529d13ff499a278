import { tableName } from '#lib/db/client.ts';
import { byCodeUnits } from '#lib/db/code-unit-order.ts';
import { keys, RECORD_PREFIX } from '#lib/db/keys.ts';
import { queryAll } from '#lib/db/query-all.ts';
import { agentEntities, ENTITY_NAMES, type EntityName, entities } from '#lib/records/entities.ts';
import { type RecordFields, recordView } from '#lib/records/record-types.ts';

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
      (a, b) => positionOf(a) - positionOf(b) || byCodeUnits(String(a.created_at), String(b.created_at)),
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
