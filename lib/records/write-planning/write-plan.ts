/**
 * Planning a write of one record as a single TransactWriteItems: the record's own items (planRecord),
 * then everything that must change with it in the same transaction (planAccompanyingItems). The
 * plan's shape (its actions, the role of each to explain a cancellation, what committing it
 * yields) is here too: the planners of accompanying items add to it and the committer reads it.
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { type EntityName, entities } from '#lib/records/entities.ts';
import {
  MAX_RECORDS_PER_ENTITY,
  type RecordFields,
  type RecordView,
  recordView,
  type StoredItem,
  type WriteOptions,
} from '#lib/records/record-types.ts';
import { historyEntry } from '#lib/records/write-planning/history.ts';
import { planPhotoUsages } from '#lib/records/write-planning/photo-usages.ts';
import { planPrimary } from '#lib/records/write-planning/primary-pointer.ts';
import { planReferences } from '#lib/records/write-planning/references.ts';

/** What each action of a transaction is for, to explain a cancellation. */
export type ActionRole =
  | { kind: 'record' }
  | { kind: 'business' }
  | { kind: 'count' }
  | { kind: 'reference'; field: string; index?: number; target: string }
  | { kind: 'unreference' }
  /** A photo's reverse reference to the record (unconditional). */
  | { kind: 'usage' }
  | { kind: 'primary' }
  | { kind: 'history' }
  /** A caller's condition on another item (a changeset item still staged, an entry not undone). */
  | { kind: 'guard'; message: string };

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Appends one action, with its role, to the transaction being planned. */
export type AddAction = (role: ActionRole, item: TransactItem) => void;

export interface PlannedWrite {
  input: TransactWriteCommandInput;
  roles: ActionRole[];
  result: RecordView;
  /** Id of the Change History entry this write records. */
  historyId: string;
  /** Whether a failed record condition may be retried (false when the caller sent If-Match). */
  retryVersionConflicts: boolean;
  currentVersion: number | undefined;
}

export interface PlanInput {
  entity: EntityName;
  businessId: string;
  recordId: string;
  current: StoredItem | undefined;
  next: RecordFields | undefined;
  pointer: string | null | undefined;
  options: WriteOptions;
  /** Extra conditional actions that must hold for the write to happen. */
  guards?: { item: TransactItem; message: string }[] | undefined;
  /** Extra attributes of the Change History entry (e.g. the entry an undo undoes). */
  historyExtras?: Record<string, unknown> | undefined;
  /** Version of a created record (a deleted record restored by an undo continues its count). */
  startVersion?: number | undefined;
  /** Id for the Change History entry, when the caller must know it in advance (undo). */
  historyId?: string | undefined;
  /** Attributes stored on a created record that never appear in its view (an Idempotency-Key's request hash). */
  hidden?: Record<string, unknown> | undefined;
}

export function planWrite(input: PlanInput): PlannedWrite {
  const { current, options, startVersion } = input;
  const now = new Date().toISOString();
  const items: TransactItem[] = [];
  const roles: ActionRole[] = [];
  const add: AddAction = (role, item) => {
    items.push(item);
    roles.push(role);
  };
  const version = current ? current.version + 1 : (startVersion ?? 1);
  const result = planRecord(input, version, now, add);
  const historyId = planAccompanyingItems(input, version, now, add);

  return {
    input: { TransactItems: items },
    roles,
    result,
    historyId,
    retryVersionConflicts: options.ifMatch === undefined,
    currentVersion: current?.version,
  };
}

/**
 * The record's own Put, Update or Delete; a create also checks the business exists, and a create or
 * delete moves the per-entity count (a create is refused at MAX_RECORDS_PER_ENTITY).
 */
function planRecord(
  { entity, businessId, recordId, current, next, options, hidden }: PlanInput,
  version: number,
  now: string,
  add: AddAction,
): RecordView {
  const key = keys.record(businessId, entity, recordId);
  const createdAt = current?.created_at ?? now;
  let result: RecordView;

  if (!current && next) {
    result = recordView({
      entity,
      id: recordId,
      business_id: businessId,
      version,
      created_at: now,
      updated_at: now,
      updated_by: options.actor,
      ...next,
    });
    add(
      { kind: 'record' },
      {
        Put: {
          TableName: tableName,
          Item: {
            ...hidden,
            ...key,
            ...orderKey(entity, businessId, next, createdAt, recordId),
            entity,
            ...result,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    );
    add(
      { kind: 'business' },
      {
        ConditionCheck: {
          TableName: tableName,
          Key: keys.business(businessId),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
    );
    add(
      { kind: 'count' },
      {
        Update: {
          TableName: tableName,
          Key: keys.recordCount(businessId, entity),
          UpdateExpression: 'ADD #count :one',
          ConditionExpression: 'attribute_not_exists(#count) OR #count < :max',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':one': 1, ':max': MAX_RECORDS_PER_ENTITY },
        },
      },
    );
  } else if (current && next) {
    result = recordView({ ...current, ...next, version, updated_at: now, updated_by: options.actor });
    const names: Record<string, string> = { '#version': 'version' };
    const values: Record<string, unknown> = { ':version': version, ':seen': current.version };
    const sets = ['#version = :version'];
    const assignments = {
      ...next,
      updated_at: now,
      updated_by: options.actor,
      ...orderKey(entity, businessId, next, createdAt, recordId),
    };
    Object.entries(assignments).forEach(([field, value], index) => {
      names[`#f${index}`] = field;
      values[`:f${index}`] = value ?? null;
      sets.push(`#f${index} = :f${index}`);
    });
    add(
      { kind: 'record' },
      {
        Update: {
          TableName: tableName,
          Key: key,
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: '#version = :seen',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
    );
  } else if (current) {
    result = recordView(current);
    add(
      { kind: 'record' },
      {
        Delete: {
          TableName: tableName,
          Key: key,
          ConditionExpression: '#version = :seen AND (attribute_not_exists(ref_count) OR ref_count <= :zero)',
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':seen': current.version, ':zero': 0 },
        },
      },
    );
    add(
      { kind: 'count' },
      {
        Update: {
          TableName: tableName,
          Key: keys.recordCount(businessId, entity),
          UpdateExpression: 'ADD #count :minusOne',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':minusOne': -1 },
        },
      },
    );
  } else {
    throw new Error('a write needs a current record, a next one, or both');
  }
  return result;
}

/**
 * The items a write puts in its transaction besides the record's own: reference counts, photo
 * usages, the primary pointer, Change History entries and the caller's guards. Any further item
 * that must be written atomically with the record is planned here. Returns the id of the write's
 * Change History entry.
 */
function planAccompanyingItems(
  {
    entity,
    businessId,
    recordId,
    current,
    next,
    pointer,
    options,
    guards = [],
    historyExtras = {},
    historyId,
  }: PlanInput,
  version: number,
  now: string,
  add: AddAction,
): string {
  planReferences(entity, businessId, current, next, add);
  planPhotoUsages(entity, businessId, recordId, current, next, add);
  const mainHistory: Record<string, unknown> = {
    ...historyEntry(entity, businessId, recordId, current, next, options.actor, now, historyId),
    // The record's version after this write (for a delete: the version it had), for undo checks.
    version: next ? version : current?.version,
    ...historyExtras,
  };
  const histories = [mainHistory];
  const { primary } = entities[entity];
  if (primary)
    planPrimary(
      entity,
      primary,
      businessId,
      recordId,
      current,
      next,
      pointer,
      options.actor,
      now,
      add,
      histories,
    );
  for (const entry of histories) add({ kind: 'history' }, { Put: { TableName: tableName, Item: entry } });
  for (const guard of guards) add({ kind: 'guard', message: guard.message }, guard.item);
  return String(mainHistory.id);
}

function orderKey(
  entity: EntityName,
  businessId: string,
  fields: RecordFields,
  createdAt: string,
  recordId: string,
) {
  const position = typeof fields.position === 'number' ? fields.position : null;
  return keys.recordOrder(businessId, entity, position, createdAt, recordId);
}
