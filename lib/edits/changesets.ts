import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { UserPrincipal } from '#lib/auth/principal.ts';
import { batchGetAll } from '#lib/db/batch-get.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys, RECORD_PREFIX } from '#lib/db/keys.ts';
import { queryAll } from '#lib/db/query-all.ts';
import { useSession } from '#lib/edits/sessions.ts';
import { ConflictError, NotFoundError, ValidationError, type ValidationIssue } from '#lib/http/errors.ts';
import { toValidationIssues } from '#lib/http/validation.ts';
import { type EntityName, entities } from '#lib/records/entities.ts';
import { sameValue } from '#lib/records/merge-patch.ts';
import {
  type Actor,
  applyGuardedChange,
  type Decision,
  mergeIntoRecord,
  newRecordFields,
  type RecordFields,
  type RecordView,
  readRecords,
  recordView,
  setIntoRecord,
} from '#lib/records/record-store.ts';
import { schemasOf } from '#lib/records/schemas.ts';

/**
 * Changesets (DESIGN §6): proposed changes staged in a session, ticked or unticked one by one,
 * then applied item by item — each only if what it changes has not moved since staging — and
 * revertible where nothing changed since. Statuses: changeset staged → applied | discarded,
 * applied → reverted; item staged → applied | conflict | skipped, applied → reverted |
 * revert_conflict.
 */
export type ChangesetStatus = 'staged' | 'applying' | 'applied' | 'reverting' | 'reverted' | 'discarded';
export type ItemStatus = 'staged' | 'applied' | 'conflict' | 'skipped' | 'reverted' | 'revert_conflict';

export interface StagedItemInput {
  entity: EntityName;
  action: 'create' | 'update' | 'delete';
  record_id?: string | undefined;
  fields?: Record<string, unknown> | undefined;
}

interface Header {
  id: string;
  business_id: string;
  session_id: string;
  opened_by: string;
  summary: string | null;
  status: ChangesetStatus;
  created_at: string;
  applied_at: string | null;
  reverted_at: string | null;
  discarded_at: string | null;
  claimed_at?: string | null;
}

interface Item {
  id: string;
  index: number;
  entity: EntityName;
  action: 'create' | 'update' | 'delete';
  record_id: string;
  fields: Record<string, unknown> | null;
  /** update: the staged fields' values at staging; delete: the whole record. */
  before: Record<string, unknown> | null;
  /** update: the changed fields' values once applied; create: the record created. */
  after: Record<string, unknown> | null;
  base_version: number | null;
  ticked: boolean;
  status: ItemStatus;
  outcome: Record<string, unknown> | null;
}

/** A claim on apply/revert older than this is taken over (the claimer died mid-way). */
const CLAIM_LEASE_MS = 5 * 60 * 1000;

// ---------------------------------------------------------------------------------------------
// Staging

export async function stageChangeset(
  user: UserPrincipal,
  sessionId: string,
  input: { summary?: string | undefined; items: StagedItemInput[] },
) {
  const session = await useSession(user, sessionId);
  const businessId = session.business_id;
  const records = await queryAll({
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :records)',
    ExpressionAttributeValues: { ':pk': keys.business(businessId).pk, ':records': RECORD_PREFIX },
    ConsistentRead: true,
  });
  const existing = new Map(records.map((item) => [`${item.entity}#${item.id}`, item]));
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  const changesetId = randomUUID();
  const items: Item[] = [];

  for (const [index, staged] of input.items.entries()) {
    const at = (...loc: (string | number)[]) => ['body', 'items', index, ...loc];
    const fail = (loc: (string | number)[], msg: string, type = 'invalid_item') =>
      issues.push({ loc, msg, type });
    const isProfile = staged.entity === 'profile';
    const recordId = staged.action === 'create' ? (isProfile ? 'profile' : randomUUID()) : staged.record_id;
    if (staged.action !== 'create' && !recordId) {
      fail(at('record_id'), `record_id is required to ${staged.action}`);
      continue;
    }
    if (staged.action === 'create' && staged.record_id !== undefined && !isProfile) {
      fail(at('record_id'), 'a create gets its id from the service; leave record_id out');
      continue;
    }
    const key = `${staged.entity}#${recordId}`;
    if (seen.has(key)) {
      fail(at('record_id'), 'one item per record in a changeset');
      continue;
    }
    seen.add(key);
    const current = existing.get(key);
    const fields = staged.fields ?? {};
    const base = {
      id: randomUUID(),
      index,
      entity: staged.entity,
      action: staged.action,
      record_id: recordId ?? '',
    };

    if (staged.action === 'create') {
      if (current) {
        fail(at('action'), 'the profile exists already; update it');
        continue;
      }
      const parsed = schemasOf(staged.entity).write.safeParse(fields);
      if (!parsed.success) {
        issues.push(...prefixed(toValidationIssues('body', parsed.error), at('fields')));
        continue;
      }
      issues.push(...missingReferences(staged.entity, parsed.data, existing, at('fields')));
      items.push({
        ...base,
        fields: parsed.data,
        before: null,
        after: null,
        base_version: null,
        ticked: true,
        status: 'staged',
        outcome: null,
      });
      continue;
    }

    if (!current) {
      fail(at('record_id'), `no ${entities[staged.entity].title} ${recordId} in this business`, 'not_found');
      continue;
    }
    if (staged.action === 'delete') {
      items.push({
        ...base,
        fields: null,
        before: fieldsOf(staged.entity, current),
        after: null,
        base_version: Number(current.version),
        ticked: true,
        status: 'staged',
        outcome: null,
      });
      continue;
    }
    const parsed = schemasOf(staged.entity).patch.safeParse(fields);
    if (!parsed.success || Object.keys(fields).length === 0) {
      if (parsed.success) fail(at('fields'), 'an update needs at least one field');
      else issues.push(...prefixed(toValidationIssues('body', parsed.error), at('fields')));
      continue;
    }
    try {
      mergeIntoRecord(staged.entity, current, fields);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      issues.push(...prefixed(error.details as ValidationIssue[], at('fields')));
      continue;
    }
    issues.push(...missingReferences(staged.entity, fields, existing, at('fields')));
    const before = Object.fromEntries(Object.keys(fields).map((field) => [field, current[field] ?? null]));
    items.push({
      ...base,
      fields,
      before,
      after: null,
      base_version: Number(current.version),
      ticked: true,
      status: 'staged',
      outcome: null,
    });
  }
  issues.push(...(await missingPhotos(businessId, items)));
  if (issues.length > 0) throw new ValidationError('Some items cannot be staged; nothing was staged', issues);

  const now = new Date().toISOString();
  const header: Header = {
    id: changesetId,
    business_id: businessId,
    session_id: sessionId,
    opened_by: user.userId,
    summary: input.summary ?? null,
    status: 'staged',
    created_at: now,
    applied_at: null,
    reverted_at: null,
    discarded_at: null,
  };
  // Items first, header last: a changeset exists only once its header does, so a failure half-way
  // leaves unreachable items, never a half-staged changeset. (101 writes exceed one transaction.)
  for (let start = 0; start < items.length; start += 25) {
    await batchPut(
      items.slice(start, start + 25).map((item) => ({
        ...keys.changesetItem(changesetId, item.index),
        changeset_id: changesetId,
        ...item,
      })),
    );
  }
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...keys.changeset(changesetId),
        ...keys.changesetOrder(businessId, now, changesetId),
        ...header,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return view(header, items);
}

// ---------------------------------------------------------------------------------------------
// Reading, ticking, discarding, listing

/** A changeset and its items; only the opener of its session may see it (404 otherwise). */
export async function readChangeset(user: UserPrincipal, changesetId: string) {
  const { header, items } = await loadOwn(user, changesetId);
  return view(header, items);
}

export async function tickItem(user: UserPrincipal, changesetId: string, itemId: string, ticked: boolean) {
  const { header, items } = await loadOwn(user, changesetId);
  await useSession(user, header.session_id);
  const item = items.find((candidate) => candidate.id === itemId);
  if (!item) throw new NotFoundError(`No item ${itemId} in this changeset`);
  if (header.status !== 'staged')
    throw new ConflictError(`The changeset is ${header.status}; only staged changesets can be changed`);
  try {
    await dynamo.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: tableName,
              Key: keys.changeset(changesetId),
              ConditionExpression: '#status = :staged',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':staged': 'staged' },
            },
          },
          {
            Update: {
              TableName: tableName,
              Key: keys.changesetItem(changesetId, item.index),
              UpdateExpression: 'SET ticked = :ticked',
              ExpressionAttributeValues: { ':ticked': ticked },
            },
          },
        ],
      }),
    );
  } catch (error) {
    if ((error as Error).name === 'TransactionCanceledException')
      throw new ConflictError('The changeset is no longer staged');
    throw error;
  }
  item.ticked = ticked;
  return view(header, items);
}

export async function discardChangeset(user: UserPrincipal, changesetId: string) {
  const { header, items } = await loadOwn(user, changesetId);
  await useSession(user, header.session_id);
  const now = new Date().toISOString();
  await moveStatus(changesetId, ['staged'], 'discarded', { discarded_at: now });
  return view({ ...header, status: 'discarded', discarded_at: now }, items);
}

/** A business's changesets, newest first, optionally of one status. */
export async function listChangesets(
  businessId: string,
  page: { limit: number; cursor?: string | undefined; status?: string | undefined },
) {
  const start = page.cursor ? decodeCursor(page.cursor, businessId) : undefined;
  const order = keys.changesetOrder(businessId, '', '');
  const result = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ScanIndexForward: false,
      Limit: page.limit,
      ...(page.status
        ? { FilterExpression: '#status = :status', ExpressionAttributeNames: { '#status': 'status' } }
        : {}),
      ExpressionAttributeValues: { ':pk': order.gsi1pk, ...(page.status ? { ':status': page.status } : {}) },
      ...(start ? { ExclusiveStartKey: start } : {}),
    }),
  );
  const last = result.LastEvaluatedKey;
  return {
    changesets: (result.Items ?? []).map((item) => headerView(item as unknown as Header)),
    nextCursor: last ? Buffer.from(JSON.stringify([last.gsi1sk, last.pk])).toString('base64url') : null,
  };
}

// ---------------------------------------------------------------------------------------------
// Applying and reverting

export async function applyChangeset(user: UserPrincipal, changesetId: string) {
  const { header, items } = await loadOwn(user, changesetId);
  await useSession(user, header.session_id);
  if (header.status !== 'staged' && header.status !== 'applying') {
    throw new ConflictError(`The changeset is ${header.status}; only a staged changeset can be applied`);
  }
  await moveStatus(changesetId, ['staged'], 'applying', { claimed_at: new Date().toISOString() }, 'applying');
  const actor: Actor = { type: 'user', id: user.userId };
  // One read of every record the ticked items touch; then one transaction per item.
  const toApply = items.filter((item) => item.status === 'staged' && item.ticked);
  const current = await readRecords(
    header.business_id,
    toApply.map((item) => ({ entity: item.entity, recordId: item.record_id })),
  );
  for (const item of items) {
    if (item.status !== 'staged') continue;
    if (!item.ticked) {
      await settle(changesetId, item, 'skipped', null);
      continue;
    }
    await applyItem(header, item, actor, current.get(`${item.entity}#${item.record_id}`) ?? null);
  }
  const now = new Date().toISOString();
  await moveStatus(changesetId, ['applying'], 'applied', { applied_at: now });
  return { ...view({ ...header, status: 'applied', applied_at: now }, items), counts: counts(items) };
}

async function applyItem(
  header: Header,
  item: Item,
  actor: Actor,
  preloaded: RecordFields | null,
): Promise<void> {
  const decide = (current: RecordView | undefined): Decision => {
    if (item.action === 'create') {
      return current
        ? { conflict: { reason: 'the id is taken' } }
        : { write: newRecordFields(item.entity, item.fields ?? {}) };
    }
    if (!current) return { conflict: { reason: 'the record no longer exists' } };
    if (item.action === 'delete') {
      return current.version === item.base_version
        ? { write: null }
        : { conflict: { reason: 'the record changed since staging', current_version: current.version } };
    }
    const moved = movedFields(current, Object.keys(item.fields ?? {}), item.before, 'staged_before');
    if (moved.length > 0) return { conflict: { reason: 'fields moved since staging', fields: moved } };
    return { write: mergeIntoRecord(item.entity, current, item.fields ?? {}) };
  };
  const outcome = await applyGuardedChange({
    entity: item.entity,
    businessId: header.business_id,
    recordId: item.record_id,
    actor,
    decide,
    preloaded,
    historyExtras: { changeset_id: header.id },
    // The item's status, outcome and written values change in the record's own transaction.
    guards: (version, next) => [
      itemGuard(header.id, item, 'applied', { version }, 'staged', writtenValues(item, next)),
    ],
  });
  if (outcome.status === 'conflict') {
    await settle(header.id, item, 'conflict', outcome.details);
    return;
  }
  item.status = 'applied';
  item.outcome = { version: outcome.record.version };
  item.after = writtenValues(item, outcome.record);
}

/** What an applied item wrote: the changed fields' new values (update), the record (create). */
function writtenValues(item: Item, next: RecordFields | null): Record<string, unknown> | null {
  if (!next || item.action === 'delete') return null;
  if (item.action === 'create') return fieldsOf(item.entity, next);
  return Object.fromEntries(Object.keys(item.fields ?? {}).map((field) => [field, next[field] ?? null]));
}

export async function revertChangeset(user: UserPrincipal, changesetId: string) {
  const { header, items } = await loadOwn(user, changesetId);
  await useSession(user, header.session_id);
  if (header.status !== 'applied' && header.status !== 'reverting') {
    throw new ConflictError(`The changeset is ${header.status}; only an applied changeset can be reverted`);
  }
  await moveStatus(
    changesetId,
    ['applied'],
    'reverting',
    { claimed_at: new Date().toISOString() },
    'reverting',
  );
  const actor: Actor = { type: 'user', id: user.userId };
  const applied = items.filter((item) => item.status === 'applied');
  const current = await readRecords(
    header.business_id,
    applied.map((item) => ({ entity: item.entity, recordId: item.record_id })),
  );
  for (const item of [...items].reverse()) {
    if (item.status !== 'applied') continue;
    const outcome = await applyGuardedChange({
      entity: item.entity,
      businessId: header.business_id,
      recordId: item.record_id,
      actor,
      preloaded: current.get(`${item.entity}#${item.record_id}`) ?? null,
      decide: (current) =>
        undoDecision(
          item.entity,
          item.action,
          item.before,
          item.after,
          Number(item.outcome?.version),
          current,
        ),
      historyExtras: { changeset_id: header.id, revert_of: item.id },
      guards: () => [itemGuard(header.id, item, 'reverted', {}, 'applied')],
    });
    if (outcome.status === 'written') {
      item.status = 'reverted';
    } else {
      await settle(header.id, item, 'revert_conflict', outcome.details, 'applied');
    }
  }
  const now = new Date().toISOString();
  await moveStatus(changesetId, ['reverting'], 'reverted', { reverted_at: now });
  return { ...view({ ...header, status: 'reverted', reverted_at: now }, items), counts: counts(items) };
}

/**
 * How to take back one change, if its values still stand: an update whose fields still hold what
 * it wrote gets its old values back; a create still at its version is deleted; a delete whose id
 * is still free is recreated (its version counting on).
 */
export function undoDecision(
  entity: EntityName,
  action: 'create' | 'update' | 'delete',
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
  version: number,
  current: RecordView | undefined,
): Decision {
  if (action === 'delete') {
    return current
      ? { conflict: { reason: 'a record with this id exists again' } }
      : { write: setIntoRecord(entity, {}, before ?? {}), startVersion: version + 1 };
  }
  if (!current) return { conflict: { reason: 'the record no longer exists' } };
  if (action === 'create') {
    return current.version === version
      ? { write: null }
      : { conflict: { reason: 'the record changed since', current_version: current.version } };
  }
  const moved = movedFields(current, Object.keys(after ?? {}), after, 'expected');
  if (moved.length > 0) return { conflict: { reason: 'fields changed since', fields: moved } };
  return { write: setIntoRecord(entity, current, before ?? {}) };
}

// ---------------------------------------------------------------------------------------------
// Helpers

/** The fields whose current value differs from the expected one, each with both values. */
function movedFields(
  current: RecordFields,
  fields: string[],
  expected: Record<string, unknown> | null,
  expectedLabel: 'staged_before' | 'expected',
) {
  return fields
    .filter((field) => !sameValue(current[field] ?? null, expected?.[field] ?? null))
    .map((field) => ({ field, [expectedLabel]: expected?.[field] ?? null, current: current[field] ?? null }));
}

async function loadOwn(user: UserPrincipal, changesetId: string): Promise<{ header: Header; items: Item[] }> {
  const found = await queryAll({
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.changeset(changesetId).pk },
    ConsistentRead: true,
  });
  const header = found.find((item) => item.sk === 'CHANGESET') as unknown as Header | undefined;
  if (!header || header.opened_by !== user.userId) throw new NotFoundError(`No changeset ${changesetId}`);
  const items = found
    .filter((item) => String(item.sk).startsWith('ITEM#'))
    .map((item) => item as unknown as Item)
    .sort((a, b) => a.index - b.index);
  return { header, items };
}

/** Move the header from one of `from` to `to` exactly once; a lost race is a 409. */
async function moveStatus(
  changesetId: string,
  from: ChangesetStatus[],
  to: ChangesetStatus,
  set: Record<string, unknown>,
  resumable?: ChangesetStatus,
) {
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = { ':to': to };
  const assignments = ['#status = :to'];
  Object.entries(set).forEach(([field, value], i) => {
    names[`#s${i}`] = field;
    values[`:s${i}`] = value;
    assignments.push(`#s${i} = :s${i}`);
  });
  const allowed = from.map((status, i) => {
    values[`:from${i}`] = status;
    return `#status = :from${i}`;
  });
  if (resumable) {
    // A claim whose holder died may be taken over once its lease has run out.
    values[':resumable'] = resumable;
    values[':stale'] = new Date(Date.now() - CLAIM_LEASE_MS).toISOString();
    allowed.push('(#status = :resumable AND claimed_at < :stale)');
  }
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.changeset(changesetId),
        UpdateExpression: `SET ${assignments.join(', ')}`,
        ConditionExpression: allowed.join(' OR '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException)
      throw new ConflictError(`The changeset cannot become ${to} from its current status`);
    throw error;
  }
}

function itemGuard(
  changesetId: string,
  item: Item,
  to: ItemStatus,
  outcome: Record<string, unknown>,
  from: ItemStatus = 'staged',
  after?: Record<string, unknown> | null,
) {
  return {
    message: `The item is no longer ${from}`,
    item: {
      Update: {
        TableName: tableName,
        Key: keys.changesetItem(changesetId, item.index),
        UpdateExpression: `SET #status = :to, outcome = :outcome${after === undefined ? '' : ', #after = :after'}`,
        ConditionExpression: '#status = :from',
        ExpressionAttributeNames: {
          '#status': 'status',
          ...(after === undefined ? {} : { '#after': 'after' }),
        },
        ExpressionAttributeValues: {
          ':to': to,
          ':from': from,
          ':outcome': { ...(item.outcome ?? {}), ...outcome },
          ...(after === undefined ? {} : { ':after': after }),
        },
      },
    },
  };
}

async function settle(
  changesetId: string,
  item: Item,
  to: ItemStatus,
  outcome: Record<string, unknown> | null,
  from: ItemStatus = 'staged',
) {
  await dynamo.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.changesetItem(changesetId, item.index),
      UpdateExpression: 'SET #status = :to, outcome = :outcome',
      ConditionExpression: '#status = :from',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':to': to,
        ':from': from,
        ':outcome': to === 'revert_conflict' ? { ...(item.outcome ?? {}), revert: outcome } : outcome,
      },
    }),
  );
  item.status = to;
  item.outcome = to === 'revert_conflict' ? { ...(item.outcome ?? {}), revert: outcome } : outcome;
}

function counts(items: Item[]) {
  const tally: Record<string, number> = {
    applied: 0,
    conflict: 0,
    skipped: 0,
    reverted: 0,
    revert_conflict: 0,
  };
  for (const item of items) tally[item.status] = (tally[item.status] ?? 0) + 1;
  return tally;
}

function headerView(header: Header) {
  const status =
    header.status === 'applying' ? 'staged' : header.status === 'reverting' ? 'applied' : header.status;
  return {
    id: header.id,
    business_id: header.business_id,
    session_id: header.session_id,
    summary: header.summary,
    status,
    created_at: header.created_at,
    applied_at: header.applied_at ?? null,
    reverted_at: header.reverted_at ?? null,
    discarded_at: header.discarded_at ?? null,
  };
}

function view(header: Header, items: Item[]) {
  return {
    ...headerView(header),
    items: items.map((item) => ({
      id: item.id,
      index: item.index,
      entity: item.entity,
      action: item.action,
      record_id: item.record_id,
      fields: item.fields,
      before: item.before,
      base_version: item.base_version,
      ticked: item.ticked,
      status: item.status,
      outcome: item.outcome,
    })),
  };
}

function fieldsOf(entity: EntityName, record: RecordFields): RecordFields {
  const view = recordView({ ...record, entity });
  const members = entities[entity].members;
  return Object.fromEntries(
    [...Object.keys(entities[entity].fields), ...(members ? [members.field] : [])].map((field) => [
      field,
      view[field] ?? null,
    ]),
  );
}

function prefixed(issues: ValidationIssue[], prefix: (string | number)[]): ValidationIssue[] {
  return issues.map((issue) => ({ ...issue, loc: [...prefix, ...issue.loc.slice(1)] }));
}

/** Referenced records (location_id) must exist in this business when the item is staged. */
function missingReferences(
  entity: EntityName,
  fields: RecordFields,
  existing: Map<string, RecordFields>,
  at: (string | number)[],
): ValidationIssue[] {
  return Object.entries(entities[entity].fields).flatMap(([field, spec]) => {
    const value = fields[field];
    if (!spec.references || spec.references === 'photo' || typeof value !== 'string') return [];
    return existing.has(`${spec.references}#${value}`)
      ? []
      : [
          {
            loc: [...at, field],
            msg: `References a ${spec.references} that does not exist in this business`,
            type: 'reference',
          },
        ];
  });
}

async function missingPhotos(businessId: string, items: Item[]): Promise<ValidationIssue[]> {
  const wanted = items.flatMap((item) =>
    Object.entries(entities[item.entity].fields)
      .filter(([field, spec]) => spec.references === 'photo' && typeof item.fields?.[field] === 'string')
      .map(([field]) => ({ item, field, photoId: String(item.fields?.[field]) })),
  );
  if (wanted.length === 0) return [];
  const ids = [...new Set(wanted.map((w) => w.photoId))];
  const photos = await batchGetAll(ids.map((id) => keys.photo(businessId, id)));
  const live = new Set(photos.filter((photo) => !photo.deleted_at).map((photo) => String(photo.id)));
  return wanted
    .filter((w) => !live.has(w.photoId))
    .map((w) => ({
      loc: ['body', 'items', w.item.index, 'fields', w.field],
      msg: 'References a photo that does not exist in this business',
      type: 'reference',
    }));
}

async function batchPut(items: Record<string, unknown>[]): Promise<void> {
  let pending = items.map((Item) => ({ PutRequest: { Item } }));
  for (let attempt = 0; pending.length > 0 && attempt < 8; attempt++) {
    const result = await dynamo.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
    pending = (result.UnprocessedItems?.[tableName] ?? []) as typeof pending;
    if (pending.length > 0) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt));
  }
  if (pending.length > 0) throw new ConflictError('The changeset could not be stored; retry');
}

function decodeCursor(cursor: string, businessId: string) {
  try {
    const [gsi1sk, pk] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    if (typeof gsi1sk === 'string' && typeof pk === 'string' && /^CHANGESET#[0-9a-f-]{36}$/.test(pk)) {
      return { pk, sk: 'CHANGESET', gsi1pk: keys.changesetOrder(businessId, '', '').gsi1pk, gsi1sk };
    }
  } catch {
    // fall through to the 422
  }
  throw new ValidationError('Invalid cursor', [
    { loc: ['query', 'cursor'], msg: 'Not a cursor this list gave out', type: 'cursor' },
  ]);
}
