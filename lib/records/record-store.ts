import { randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { v7 as uuidv7 } from 'uuid';
import { batchGetAll } from '#lib/db/batch-get.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys, RECORD_PREFIX } from '#lib/db/keys.ts';
import { queryAll } from '#lib/db/query-all.ts';
import {
  ConflictError,
  HttpError,
  NotFoundError,
  ValidationError,
  type ValidationIssue,
} from '#lib/http/errors.ts';
import { toValidationIssues } from '#lib/http/validation.ts';
import { decodeCursor, encodeCursor } from '#lib/records/cursor.ts';
import { type EntityName, entities, referencesTo } from '#lib/records/entities.ts';
import { applyMergePatch, sameValue } from '#lib/records/merge-patch.ts';
import { schemasOf } from '#lib/records/schemas.ts';

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

type StoredItem = RecordView & { ref_count?: number; entity: EntityName };

export const MAX_RECORDS_PER_ENTITY = 500;
const MAX_WRITE_ATTEMPTS = 100;

export class VersionConflictError extends HttpError {
  constructor(currentVersion: number) {
    super(409, 'VERSION_CONFLICT', `The record is at version ${currentVersion}`, {
      current_version: currentVersion,
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Reads

export async function getRecord(
  entity: EntityName,
  businessId: string,
  recordId: string,
): Promise<RecordView> {
  return recordView(await readExisting(entity, businessId, recordId));
}

export async function listRecords(
  entity: EntityName,
  businessId: string,
  page: { limit: number; cursor?: string | undefined },
): Promise<{ records: RecordView[]; nextCursor: string | null }> {
  const startKey = page.cursor ? decodeCursor(page.cursor, businessId, entity) : undefined;
  const result = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :partition',
      ExpressionAttributeValues: { ':partition': keys.recordOrder(businessId, entity, null, '', '').gsi1pk },
      Limit: page.limit,
      ...(startKey ? { ExclusiveStartKey: startKey } : {}),
    }),
  );
  return {
    records: (result.Items ?? []).map((item) => recordView(item as StoredItem)),
    nextCursor: result.LastEvaluatedKey ? encodeCursor(result.LastEvaluatedKey) : null,
  };
}

/** The members of a package or service item, in the order of its member list. */
export async function listMembers(
  entity: EntityName,
  businessId: string,
  recordId: string,
): Promise<RecordView[]> {
  const members = entities[entity].members;
  if (!members) throw new Error(`${entity} has no members`);
  const owner = await readExisting(entity, businessId, recordId);
  const ids = (owner[members.field] as string[] | undefined) ?? [];
  const found = await readRecords(
    businessId,
    ids.map((id) => ({ entity: members.entity, recordId: id })),
  );
  return ids.flatMap((id) => {
    const item = found.get(`${members.entity}#${id}`);
    return item ? [recordView(item)] : [];
  });
}

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

// ---------------------------------------------------------------------------------------------
// Writes: every one is a single TransactWriteItems (record + Change History entry + bookkeeping)

export interface WriteOptions {
  actor: Actor;
  /** The version the caller last saw (If-Match); a mismatch is a 409 VERSION_CONFLICT. */
  ifMatch?: number | undefined;
}

export async function createRecord(
  entity: EntityName,
  businessId: string,
  body: RecordFields,
  options: WriteOptions,
  recordId: string = randomUUID(),
): Promise<RecordView> {
  const fields = completeFields(entity, body);
  return commitWithRetry(async () => {
    const pointer =
      entity === 'location' && fields.is_primary === true ? await readPrimaryPointer(businessId) : undefined;
    return planWrite({ entity, businessId, recordId, current: undefined, next: fields, pointer, options });
  });
}

export async function replaceRecord(
  entity: EntityName,
  businessId: string,
  recordId: string,
  body: RecordFields,
  options: WriteOptions,
): Promise<RecordView> {
  return updateWith(entity, businessId, recordId, options, (current) => ({
    ...completeFields(entity, body),
    ...memberFieldOf(entity, current),
  }));
}

export async function patchRecord(
  entity: EntityName,
  businessId: string,
  recordId: string,
  patch: RecordFields,
  options: WriteOptions,
): Promise<RecordView> {
  return updateWith(entity, businessId, recordId, options, (current) =>
    mergeIntoRecord(entity, current, patch),
  );
}

export async function setMembers(
  entity: EntityName,
  businessId: string,
  recordId: string,
  memberIds: string[],
  options: WriteOptions,
): Promise<RecordView> {
  const members = entities[entity].members;
  if (!members) throw new Error(`${entity} has no members`);
  return updateWith(entity, businessId, recordId, options, (current) => ({
    ...writableFieldsOf(entity, current),
    [members.field]: memberIds,
  }));
}

export async function deleteRecord(
  entity: EntityName,
  businessId: string,
  recordId: string,
  options: WriteOptions,
): Promise<void> {
  await commitWithRetry(async () => {
    const { current, pointer } = await readForWrite(entity, businessId, recordId);
    checkIfMatch(current, options.ifMatch);
    if ((current.ref_count ?? 0) > 0) {
      const referrers = await findReferrers(entity, businessId, recordId);
      if (referrers.length > 0) {
        throw new ConflictError(`This ${entities[entity].title} is still referenced`, { referrers });
      }
    }
    return planWrite({ entity, businessId, recordId, current, next: undefined, pointer, options });
  });
}

async function updateWith(
  entity: EntityName,
  businessId: string,
  recordId: string,
  options: WriteOptions,
  nextFields: (current: StoredItem) => RecordFields,
): Promise<RecordView> {
  return commitWithRetry(async () => {
    const { current, pointer } = await readForWrite(entity, businessId, recordId);
    checkIfMatch(current, options.ifMatch);
    return planWrite({ entity, businessId, recordId, current, next: nextFields(current), pointer, options });
  });
}

// ---------------------------------------------------------------------------------------------
// Planning a write

/** What each action of a transaction is for, to explain a cancellation. */
type ActionRole =
  | { kind: 'record' }
  | { kind: 'business' }
  | { kind: 'count' }
  | { kind: 'reference'; field: string; index?: number; target: string }
  | { kind: 'unreference' }
  | { kind: 'primary' }
  | { kind: 'history' }
  /** A caller's condition on another item (a changeset item still staged, an entry not undone). */
  | { kind: 'guard'; message: string };

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

interface PlannedWrite {
  input: TransactWriteCommandInput;
  roles: ActionRole[];
  result: RecordView;
  /** Id of the Change History entry this write records. */
  historyId: string;
  /** Whether a failed record condition may be retried (false when the caller sent If-Match). */
  retryVersionConflicts: boolean;
  currentVersion: number | undefined;
}

interface PlanInput {
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
}

function planWrite({
  entity,
  businessId,
  recordId,
  current,
  next,
  pointer,
  options,
  guards = [],
  historyExtras = {},
  startVersion,
  historyId,
}: PlanInput): PlannedWrite {
  const now = new Date().toISOString();
  const key = keys.record(businessId, entity, recordId);
  const items: NonNullable<TransactWriteCommandInput['TransactItems']> = [];
  const roles: ActionRole[] = [];
  const add = (role: ActionRole, item: (typeof items)[number]) => {
    items.push(item);
    roles.push(role);
  };
  const version = current ? current.version + 1 : (startVersion ?? 1);
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
          Item: { ...key, ...orderKey(entity, businessId, next, createdAt, recordId), entity, ...result },
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

  planReferences(entity, businessId, current, next, add);
  const mainHistory: Record<string, unknown> = {
    ...historyEntry(entity, businessId, recordId, current, next, options.actor, now, historyId),
    // The record's version after this write (for a delete: the version it had), for undo checks.
    version: next ? version : current?.version,
    ...historyExtras,
  };
  const histories = [mainHistory];
  if (entity === 'location')
    planPrimary(businessId, recordId, current, next, pointer, options.actor, now, add, histories);
  for (const entry of histories) add({ kind: 'history' }, { Put: { TableName: tableName, Item: entry } });
  for (const guard of guards) add({ kind: 'guard', message: guard.message }, guard.item);

  return {
    input: { TransactItems: items },
    roles,
    result,
    historyId: String(mainHistory.id),
    retryVersionConflicts: options.ifMatch === undefined,
    currentVersion: current?.version,
  };
}

/** Reference counting keeps deletes honest: a record whose ref_count > 0 cannot be deleted. */
function planReferences(
  entity: EntityName,
  businessId: string,
  current: StoredItem | undefined,
  next: RecordFields | undefined,
  add: (role: ActionRole, item: NonNullable<TransactWriteCommandInput['TransactItems']>[number]) => void,
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

/** At most one primary location: the pointer item names it, and a new primary clears the old one. */
function planPrimary(
  businessId: string,
  recordId: string,
  current: StoredItem | undefined,
  next: RecordFields | undefined,
  pointer: string | null | undefined,
  actor: Actor,
  now: string,
  add: (role: ActionRole, item: NonNullable<TransactWriteCommandInput['TransactItems']>[number]) => void,
  histories: Record<string, unknown>[],
): void {
  const was = current?.is_primary === true;
  const will = next?.is_primary === true;
  if (was === will) return;
  const pointerKey = keys.primaryLocation(businessId);
  const seen = pointer ?? null;
  if (will) {
    add(
      { kind: 'primary' },
      {
        Put: {
          TableName: tableName,
          Item: { ...pointerKey, location_id: recordId },
          ConditionExpression: seen === null ? 'attribute_not_exists(pk)' : 'location_id = :seen',
          ...(seen === null ? {} : { ExpressionAttributeValues: { ':seen': seen } }),
        },
      },
    );
    if (seen !== null && seen !== recordId) {
      add(
        { kind: 'primary' },
        {
          Update: {
            TableName: tableName,
            Key: keys.record(businessId, 'location', seen),
            UpdateExpression:
              'SET is_primary = :false, #version = #version + :one, updated_at = :now, updated_by = :actor',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':false': false, ':one': 1, ':now': now, ':actor': actor },
          },
        },
      );
      histories.push(
        historyItem(
          businessId,
          'location',
          seen,
          'update',
          { is_primary: true },
          { is_primary: false },
          actor,
          now,
        ),
      );
    }
  } else {
    add(
      { kind: 'primary' },
      {
        Delete: {
          TableName: tableName,
          Key: pointerKey,
          ConditionExpression: 'location_id = :me',
          ExpressionAttributeValues: { ':me': recordId },
        },
      },
    );
  }
}

function historyEntry(
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

function historyItem(
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

// ---------------------------------------------------------------------------------------------
// Committing

async function commitWithRetry(plan: () => Promise<PlannedWrite>): Promise<RecordView> {
  return (await commitPlanWithRetry(plan)).result;
}

async function commitPlanWithRetry(plan: () => Promise<PlannedWrite>): Promise<PlannedWrite> {
  for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
    const planned = await plan();
    try {
      await dynamo.send(new TransactWriteCommand(planned.input));
      return planned;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const verdict = explainCancellation(error, planned);
      if (verdict !== 'retry') throw verdict;
      // Someone else changed the record (or the primary location) meanwhile: back off, re-read, re-plan.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 5 + attempt * 2)));
    }
  }
  throw new ConflictError('The record is changing too often to write; retry');
}

function explainCancellation(
  error: TransactionCanceledException,
  planned: PlannedWrite,
): HttpError | 'retry' {
  const reasons = error.CancellationReasons ?? [];
  const issues: ValidationIssue[] = [];
  let verdict: HttpError | 'retry' | undefined;
  reasons.forEach((reason, index) => {
    if (reason.Code === 'TransactionConflict') verdict ??= 'retry';
    if (reason.Code !== 'ConditionalCheckFailed') return;
    const role = planned.roles[index];
    switch (role?.kind) {
      case 'record':
        verdict ??=
          planned.retryVersionConflicts || planned.currentVersion === undefined
            ? 'retry'
            : new VersionConflictError(planned.currentVersion + 1);
        break;
      case 'guard':
        verdict ??= new ConflictError(role.message);
        break;
      case 'business':
        verdict ??= new NotFoundError('Business not found');
        break;
      case 'count':
        verdict ??= new ConflictError(
          `A business may have at most ${MAX_RECORDS_PER_ENTITY} records of one kind`,
        );
        break;
      case 'reference':
        issues.push({
          loc: ['body', role.field, ...(role.index === undefined ? [] : [role.index])],
          msg: `References a ${role.target} that does not exist in this business`,
          type: 'reference',
        });
        break;
      default:
        verdict ??= 'retry';
    }
  });
  if (issues.length > 0)
    return new ValidationError('The record references records that do not exist', issues);
  return verdict ?? 'retry';
}

// ---------------------------------------------------------------------------------------------
// Helpers

async function readExisting(entity: EntityName, businessId: string, recordId: string): Promise<StoredItem> {
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: tableName,
      Key: keys.record(businessId, entity, recordId),
      ConsistentRead: true,
    }),
  );
  if (!Item) throw new NotFoundError(`No ${entities[entity].title} ${recordId} in this business`);
  return Item as StoredItem;
}

/** The record, and for locations the primary pointer too, in one call. */
async function readForWrite(
  entity: EntityName,
  businessId: string,
  recordId: string,
): Promise<{ current: StoredItem; pointer: string | null | undefined }>;
async function readForWrite(
  entity: EntityName,
  businessId: string,
  recordId: string,
  options: { allowMissing: true },
): Promise<{ current: StoredItem | undefined; pointer: string | null | undefined }>;
async function readForWrite(
  entity: EntityName,
  businessId: string,
  recordId: string,
  options: { allowMissing?: boolean } = {},
): Promise<{ current: StoredItem | undefined; pointer: string | null | undefined }> {
  if (options.allowMissing && entity !== 'location') {
    const { Item } = await dynamo.send(
      new GetCommand({
        TableName: tableName,
        Key: keys.record(businessId, entity, recordId),
        ConsistentRead: true,
      }),
    );
    return { current: Item as StoredItem | undefined, pointer: undefined };
  }
  if (entity !== 'location')
    return { current: await readExisting(entity, businessId, recordId), pointer: undefined };
  const recordKey = keys.record(businessId, entity, recordId);
  const pointerKey = keys.primaryLocation(businessId);
  const items = await batchGetAll([recordKey, pointerKey], { consistent: true });
  const current = items.find((item) => item.sk === recordKey.sk) as StoredItem | undefined;
  if (!current && !options.allowMissing)
    throw new NotFoundError(`No ${entities[entity].title} ${recordId} in this business`);
  const pointer = items.find((item) => item.sk === pointerKey.sk);
  return { current, pointer: (pointer?.location_id as string | undefined) ?? null };
}

async function readPrimaryPointer(businessId: string): Promise<string | null> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: keys.primaryLocation(businessId), ConsistentRead: true }),
  );
  return (Item?.location_id as string | undefined) ?? null;
}

function checkIfMatch(current: StoredItem, ifMatch: number | undefined): void {
  if (ifMatch !== undefined && ifMatch !== current.version) throw new VersionConflictError(current.version);
}

/** Every writable field present: the ones not sent take their default, or null. */
function completeFields(entity: EntityName, body: RecordFields): RecordFields {
  return Object.fromEntries(
    Object.entries(entities[entity].fields).map(([field, spec]) => [
      field,
      body[field] === undefined ? (spec.default ?? null) : body[field],
    ]),
  );
}

function writableFieldsOf(entity: EntityName, item: RecordFields): RecordFields {
  return Object.fromEntries(
    Object.keys(entities[entity].fields)
      .filter((field) => item[field] !== null && item[field] !== undefined)
      .map((field) => [field, item[field]]),
  );
}

function memberFieldOf(entity: EntityName, item: RecordFields): RecordFields {
  const members = entities[entity].members;
  return members ? { [members.field]: (item[members.field] as string[] | undefined) ?? [] } : {};
}

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

// ---------------------------------------------------------------------------------------------
// Guarded changes: the edits API's apply, revert and undo

/** What to do with a record, decided from its current state (undefined when it does not exist). */
export type Decision =
  /** Write these complete fields (create if absent, else update), or delete it (null). */
  | { write: RecordFields | null; startVersion?: number }
  /** Leave it alone: it has moved since the change was prepared. */
  | { conflict: Record<string, unknown> };

export type GuardedOutcome =
  | { status: 'written'; record: RecordView; historyId: string }
  | { status: 'conflict'; details: Record<string, unknown> };

/**
 * Change one record only if `decide` says its current state allows it, atomically with the
 * Change History entry and the caller's `guards`. A concurrent write between the read and the
 * transaction makes it read and decide again, so the decision is always about what is written over.
 */
export async function applyGuardedChange(change: {
  entity: EntityName;
  businessId: string;
  recordId: string;
  actor: Actor;
  decide(current: RecordView | undefined): Decision;
  /** Conditions on other items, built knowing the version and fields the record will have. */
  guards?: (nextVersion: number, next: RecordFields | null) => { item: TransactItem; message: string }[];
  historyExtras?: Record<string, unknown>;
  historyId?: string;
  /**
   * The record as a batch read just found it (null: absent). The first attempt trusts it, saving
   * a read per record; the version condition catches a change since, and retries read afresh.
   */
  preloaded?: RecordFields | null;
}): Promise<GuardedOutcome> {
  let conflict: Record<string, unknown> | undefined;
  let preloaded = change.entity === 'location' ? undefined : change.preloaded;
  const planned = await commitPlanWithRetry(async () => {
    conflict = undefined;
    const { current, pointer } =
      preloaded === undefined
        ? await readForWrite(change.entity, change.businessId, change.recordId, { allowMissing: true })
        : { current: (preloaded ?? undefined) as StoredItem | undefined, pointer: undefined };
    preloaded = undefined;
    const decision = change.decide(current ? recordView(current) : undefined);
    if ('conflict' in decision) {
      conflict = decision.conflict;
    } else if (decision.write === null && !current) {
      conflict = { reason: 'the record no longer exists' };
    } else if (decision.write === null && (current?.ref_count ?? 0) > 0) {
      conflict = {
        reason: 'the record is referenced',
        referrers: await findReferrers(change.entity, change.businessId, change.recordId),
      };
    }
    if (conflict || 'conflict' in decision) throw new GuardedConflict();
    // Locations are read together with the primary pointer, so a restored primary is handled too.
    return planWrite({
      entity: change.entity,
      businessId: change.businessId,
      recordId: change.recordId,
      current,
      next: decision.write ?? undefined,
      pointer,
      options: { actor: change.actor },
      guards: change.guards?.(current ? current.version + 1 : (decision.startVersion ?? 1), decision.write),
      historyExtras: change.historyExtras,
      startVersion: decision.startVersion,
      historyId: change.historyId,
    });
  }).catch((error: unknown) => {
    if (error instanceof GuardedConflict) return undefined;
    throw error;
  });
  if (!planned) return { status: 'conflict', details: conflict ?? {} };
  return { status: 'written', record: planned.result, historyId: planned.historyId };
}

class GuardedConflict extends Error {}

/**
 * The complete fields of a record after a merge patch, validated as a whole (a 422 names the
 * fields), with its member list kept.
 */
export function mergeIntoRecord(
  entity: EntityName,
  current: RecordFields,
  patch: RecordFields,
): RecordFields {
  const merged = applyMergePatch(writableFieldsOf(entity, current), patch) as RecordFields;
  const result = schemasOf(entity).write.safeParse(merged);
  if (!result.success) {
    throw new ValidationError(
      'The patched record would not be valid',
      toValidationIssues('body', result.error),
    );
  }
  return { ...completeFields(entity, result.data), ...memberFieldOf(entity, current) };
}

/** The complete fields of a record with some top-level fields set (nested objects replaced whole). */
export function setIntoRecord(entity: EntityName, current: RecordFields, values: RecordFields): RecordFields {
  const replaced = { ...writableFieldsOf(entity, current), ...values };
  const members = entities[entity].members;
  const memberValue =
    members && members.field in values
      ? { [members.field]: values[members.field] ?? [] }
      : memberFieldOf(entity, current);
  const fields = Object.fromEntries(
    Object.entries(replaced).filter(([key, value]) => value !== null && key !== members?.field),
  );
  const result = schemasOf(entity).write.safeParse(fields);
  if (!result.success) {
    throw new ValidationError('The record would not be valid', toValidationIssues('body', result.error));
  }
  return { ...completeFields(entity, result.data), ...memberValue };
}

/** Complete fields for a new record from a create body (defaults applied, members empty). */
export function newRecordFields(entity: EntityName, body: RecordFields): RecordFields {
  return { ...completeFields(entity, body), ...memberFieldOf(entity, body) };
}

/** Several records of one business in one BatchGetItem (consistent), keyed by `<entity>#<id>`. */
export async function readRecords(
  businessId: string,
  wanted: { entity: EntityName; recordId: string }[],
): Promise<Map<string, RecordFields>> {
  const items = await batchGetAll(
    wanted.map((w) => keys.record(businessId, w.entity, w.recordId)),
    { consistent: true },
  );
  return new Map(items.map((item) => [`${item.entity}#${item.id}`, item]));
}
