/**
 * Reverse references from photos to the records that use them: one item per photo and
 * record, beside the photo's owner pointer, naming the fields that hold it. Planned into the same
 * transaction as every write of a record, so agent writes, edits apply and revert and undo all
 * keep a photo's usages true, and listing them is one Query.
 */
import { tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { type EntityName, entities } from '#lib/records/entities.ts';
import type { RecordFields } from '#lib/records/record-types.ts';
import type { AddAction } from '#lib/records/write-planning/write-plan.ts';

/** The photo ids a record references, each with the fields that hold it. */
function photoFields(entity: EntityName, fields: RecordFields | undefined): Map<string, string[]> {
  const found = new Map<string, string[]>();
  if (!fields) return found;
  for (const [field, spec] of Object.entries(entities[entity].fields)) {
    const value = fields[field];
    if (spec.references !== 'photo' || typeof value !== 'string') continue;
    found.set(value, [...(found.get(value) ?? []), field]);
  }
  return found;
}

export function planPhotoUsages(
  entity: EntityName,
  businessId: string,
  recordId: string,
  current: RecordFields | undefined,
  next: RecordFields | undefined,
  add: AddAction,
): void {
  const before = photoFields(entity, current);
  const after = photoFields(entity, next);
  for (const [photoId, fields] of after) {
    if (before.get(photoId)?.join() === fields.join()) continue;
    add(
      { kind: 'usage' },
      {
        Put: {
          TableName: tableName,
          Item: {
            ...keys.photoUsage(photoId, entity, recordId),
            photo_id: photoId,
            business_id: businessId,
            entity,
            record_id: recordId,
            fields,
          },
        },
      },
    );
  }
  for (const photoId of before.keys()) {
    if (after.has(photoId)) continue;
    add(
      { kind: 'usage' },
      { Delete: { TableName: tableName, Key: keys.photoUsage(photoId, entity, recordId) } },
    );
  }
}
