/** Change History entries: what each write changed (before/after, actor, time), put in its transaction. */
import { v7 as uuidv7 } from 'uuid';
import { keys } from '#lib/db/keys.ts';
import type { EntityName } from '#lib/records/entities.ts';
import type { Actor, RecordFields, StoredItem } from '#lib/records/record-types.ts';
import { memberFieldOf, writableFieldsOf } from '#lib/records/writes/complete-fields.ts';
import { sameValue } from '#lib/records/writes/merge-patch.ts';

export function historyEntry(
  entity: EntityName,
  businessId: string,
  recordId: string,
  current: StoredItem | undefined,
  next: RecordFields | undefined,
  actor: Actor,
  now: string,
  entryId?: string,
): Record<string, unknown> {
  if (!current)
    return historyItem(businessId, entity, recordId, 'create', null, next ?? null, actor, now, entryId);
  const old = { ...writableFieldsOf(entity, current), ...memberFieldOf(entity, current) };
  if (!next) return historyItem(businessId, entity, recordId, 'delete', old, null, actor, now, entryId);
  const before: RecordFields = {};
  const after: RecordFields = {};
  for (const [field, value] of Object.entries(next)) {
    if (!sameValue(old[field] ?? null, value ?? null)) {
      before[field] = old[field] ?? null;
      after[field] = value ?? null;
    }
  }
  return historyItem(businessId, entity, recordId, 'update', before, after, actor, now, entryId);
}

export function historyItem(
  businessId: string,
  entity: EntityName,
  recordId: string,
  action: 'create' | 'update' | 'delete',
  before: RecordFields | null,
  after: RecordFields | null,
  actor: Actor,
  at: string,
  entryId: string = uuidv7(),
): Record<string, unknown> {
  const id = entryId;
  return {
    ...keys.history(businessId, id),
    id,
    business_id: businessId,
    entity,
    record_id: recordId,
    action,
    before,
    after,
    actor,
    at,
  };
}
