/**
 * The records domain's shared vocabulary: who writes, what a record looks like (and the API's view
 * of a stored one), its limits, its 409.
 */
import { HttpError } from '#lib/http/errors.ts';
import { type EntityName, entities } from '#lib/records/entities.ts';

export interface Actor {
  type: 'user' | 'agent' | 'assistant';
  id: string;
}

export type RecordFields = Record<string, unknown>;

/** A record as the API shows it: its fields plus id, business_id, version, timestamps, updated_by. */
export type RecordView = RecordFields & {
  id: string;
  business_id: string;
  version: number;
  created_at: string;
  updated_at: string;
  updated_by: Actor;
};

export type StoredItem = RecordView & { ref_count?: number; entity: EntityName };

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

export const MAX_RECORDS_PER_ENTITY = 500;

export class VersionConflictError extends HttpError {
  constructor(currentVersion: number) {
    super(409, 'VERSION_CONFLICT', `The record is at version ${currentVersion}`, {
      current_version: currentVersion,
    });
  }
}

export interface WriteOptions {
  actor: Actor;
  /** The version the caller last saw (If-Match); a mismatch is a 409 VERSION_CONFLICT. */
  ifMatch?: number | undefined;
}
