/** The API's view of a stored record, shared by reads, writes and the edits API. */
import { type EntityName, entities } from '#lib/records/entities.ts';
import type { RecordFields, RecordView } from '#lib/records/record-types.ts';

/** The API's view of a stored record: server fields first, then the entity's fields in order. */
export function recordView(item: RecordFields): RecordView {
  const definition = entities[item.entity as EntityName];
  const view: RecordFields = {
    id: item.id,
    business_id: item.business_id,
    version: item.version,
    created_at: item.created_at,
    updated_at: item.updated_at,
    updated_by: item.updated_by,
  };
  for (const field of Object.keys(definition.fields)) view[field] = item[field] ?? null;
  if (definition.members) view[definition.members.field] = item[definition.members.field] ?? [];
  return view as RecordView;
}
