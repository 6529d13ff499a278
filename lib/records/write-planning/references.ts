/**
 * References between records: a write counts them in the target's ref_count (and checks a referenced
 * photo exists), so that a record still referenced cannot be deleted; findReferrers names who refers.
 */
import { tableName } from '#lib/db/client.ts';
import { keys, RECORD_PREFIX } from '#lib/db/keys.ts';
import { queryAll } from '#lib/db/query-all.ts';
import { type EntityName, entities, referencesTo } from '#lib/records/entities.ts';
import type { RecordFields, StoredItem } from '#lib/records/record-types.ts';
import type { AddAction } from '#lib/records/write-planning/write-plan.ts';

/** Records of this business that reference `recordId` (for the 409 of a refused delete). */
export async function findReferrers(
  entity: EntityName,
  businessId: string,
  recordId: string,
): Promise<{ entity: EntityName; record_id: string; field: string }[]> {
  const sources = referencesTo(entity);
  const records = await queryAll({
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :records)',
    ExpressionAttributeValues: { ':pk': keys.business(businessId).pk, ':records': RECORD_PREFIX },
  });
  const referrers: { entity: EntityName; record_id: string; field: string }[] = [];
  for (const item of records) {
    for (const source of sources) {
      if (item.entity !== source.entity) continue;
      const value = item[source.field];
      if (source.list ? Array.isArray(value) && value.includes(recordId) : value === recordId) {
        referrers.push({ entity: source.entity, record_id: String(item.id), field: source.field });
      }
    }
  }
  return referrers;
}

/** Reference counting keeps deletes honest: a record whose ref_count > 0 cannot be deleted. */
export function planReferences(
  entity: EntityName,
  businessId: string,
  current: StoredItem | undefined,
  next: RecordFields | undefined,
  add: AddAction,
): void {
  const before = referencesOf(entity, current);
  const after = referencesOf(entity, next);
  for (const [id, reference] of after) {
    if (before.has(id)) continue;
    if (reference.target === 'photo') {
      add(
        { kind: 'reference', field: reference.field, target: 'photo', ...indexOf(reference) },
        {
          ConditionCheck: {
            TableName: tableName,
            Key: keys.photo(businessId, id),
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deleted_at)',
          },
        },
      );
    } else {
      add(
        { kind: 'reference', field: reference.field, target: reference.target, ...indexOf(reference) },
        {
          Update: {
            TableName: tableName,
            Key: keys.record(businessId, reference.target, id),
            UpdateExpression: 'ADD ref_count :one',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':one': 1 },
          },
        },
      );
    }
  }
  for (const [id, reference] of before) {
    if (after.has(id) || reference.target === 'photo') continue;
    add(
      { kind: 'unreference' },
      {
        Update: {
          TableName: tableName,
          Key: keys.record(businessId, reference.target, id),
          UpdateExpression: 'ADD ref_count :minusOne',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':minusOne': -1 },
        },
      },
    );
  }
}

const indexOf = (reference: { index?: number }) =>
  reference.index === undefined ? {} : { index: reference.index };

function referencesOf(
  entity: EntityName,
  fields: RecordFields | undefined,
): Map<string, { field: string; target: EntityName | 'photo'; index?: number }> {
  const found = new Map<string, { field: string; target: EntityName | 'photo'; index?: number }>();
  if (!fields) return found;
  const definition = entities[entity];
  for (const [field, spec] of Object.entries(definition.fields)) {
    const value = fields[field];
    if (spec.references && typeof value === 'string') found.set(value, { field, target: spec.references });
  }
  if (definition.members) {
    const ids = (fields[definition.members.field] as string[] | undefined) ?? [];
    ids.forEach((id, index) => {
      found.set(id, {
        field: definition.members?.field ?? '',
        target: definition.members?.entity ?? 'service',
        index,
      });
    });
  }
  return found;
}
