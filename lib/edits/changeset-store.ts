/** Changesets' stored shape and the helpers their operations share: loading, status moves, guards, views. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EditsPrincipal } from '#lib/auth/principal.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { queryAll } from '#lib/db/query-all.ts';
import { storedItem } from '#lib/db/stored-item.ts';
import type { TransactUnit } from '#lib/db/transact-batches.ts';
import { ConflictError, NotFoundError } from '#lib/http/errors.ts';
import { REQUEST_HASH_ATTRIBUTE } from '#lib/http/idempotency/keyed-create.ts';
import { ENTITY_NAMES, type EntityName, entities } from '#lib/records/entities.ts';
import { type RecordFields, recordView } from '#lib/records/record-types.ts';
import { sameValue } from '#lib/records/writes/merge-patch.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * Changesets: proposed changes staged in a session, ticked or unticked one by one,
 * then applied item by item — each only if what it changes has not moved since staging — and
 * revertible where nothing changed since. Statuses: changeset staged → applied | discarded,
 * applied → reverted; item staged → applied | conflict | skipped, applied → reverted |
 * revert_conflict.
 */
const CHANGESET_STATUSES = ['staged', 'applying', 'applied', 'reverting', 'reverted', 'discarded'] as const;
export type ChangesetStatus = (typeof CHANGESET_STATUSES)[number];
const ITEM_STATUSES = ['staged', 'applied', 'conflict', 'skipped', 'reverted', 'revert_conflict'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

export interface Header {
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
  /** Set when a create with an Idempotency-Key staged it: that request's hash (keyed-create.ts). */
  [REQUEST_HASH_ATTRIBUTE]?: string;
}

export interface Item {
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

const fieldValues = () => z.nullable(z.record(z.string(), z.unknown()));
/** A timestamp a later step sets; absent (not only null) on headers written before it existed. */
const laterTimestamp = () => z._default(z.nullable(z.string()), null);

export const headerItem = storedItem<Header>('changeset header', () =>
  z.object({
    id: z.string(),
    business_id: z.string(),
    session_id: z.string(),
    opened_by: z.string(),
    summary: z.nullable(z.string()),
    status: z.enum(CHANGESET_STATUSES),
    created_at: z.string(),
    applied_at: laterTimestamp(),
    reverted_at: laterTimestamp(),
    discarded_at: laterTimestamp(),
    claimed_at: z.optional(z.nullable(z.string())),
    [REQUEST_HASH_ATTRIBUTE]: z.optional(z.string()),
  }),
);

const changesetItem = storedItem<Item>('changeset item', () =>
  z.object({
    id: z.string(),
    index: z.number(),
    entity: z.enum(ENTITY_NAMES),
    action: z.enum(['create', 'update', 'delete']),
    record_id: z.string(),
    fields: fieldValues(),
    before: fieldValues(),
    after: fieldValues(),
    base_version: z.nullable(z.number()),
    ticked: z.boolean(),
    status: z.enum(ITEM_STATUSES),
    outcome: fieldValues(),
  }),
);

/** A claim on apply/revert older than this is taken over (the claimer died mid-way). */
const CLAIM_LEASE_MS = 5 * 60 * 1000;

export async function loadOwn(
  user: EditsPrincipal,
  changesetId: string,
): Promise<{ header: Header; items: Item[] }> {
  const found = await queryAll({
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.changeset(changesetId).pk },
    ConsistentRead: true,
  });
  const stored = found.find((item) => item.sk === keys.changeset(changesetId).sk);
  // Another user's changeset is not parsed: it does not exist for this caller.
  if (!stored || stored.opened_by !== user.userId) throw new NotFoundError(`No changeset ${changesetId}`);
  const header = headerItem.fromItem(stored);
  const items = found
    .filter((item) => String(item.sk).startsWith('ITEM#'))
    .map((item) => changesetItem.fromItem(item))
    .sort((a, b) => a.index - b.index);
  return { header, items };
}

/** Move the header from one of `from` to `to` exactly once; a lost race is a 409. */
export async function moveStatus(
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

/**
 * Give back a claim taken by moveStatus (`claimedAt` its lease start) when the operation it was
 * taken for was refused before writing anything: the header gets its earlier status and lease back,
 * only if the claim is still this one.
 */
export async function releaseClaim(
  changesetId: string,
  claim: ChangesetStatus,
  claimedAt: string,
  earlier: { status: ChangesetStatus; claimed_at: string | null },
) {
  await dynamo.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.changeset(changesetId),
      UpdateExpression: 'SET #status = :earlier, claimed_at = :earlierClaim',
      ConditionExpression: '#status = :claim AND claimed_at = :mine',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':earlier': earlier.status,
        ':earlierClaim': earlier.claimed_at,
        ':claim': claim,
        ':mine': claimedAt,
      },
    }),
  );
}

export function itemGuard(
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

/** Settle an item without writing a record (a conflict, an unticked item), only if it is still `from`. */
export async function settle(
  changesetId: string,
  item: Item,
  to: ItemStatus,
  outcome: Record<string, unknown> | null,
  from: ItemStatus = 'staged',
) {
  await dynamo.send(new UpdateCommand(settleUpdate(changesetId, item, to, outcome, from)));
  markSettled(item, to, outcome);
}

/** settle's UpdateItem, also sent as one action of a batched transaction. */
export function settleUpdate(
  changesetId: string,
  item: Item,
  to: ItemStatus,
  outcome: Record<string, unknown> | null,
  from: ItemStatus = 'staged',
) {
  return {
    TableName: tableName,
    Key: keys.changesetItem(changesetId, item.index),
    UpdateExpression: 'SET #status = :to, outcome = :outcome',
    ConditionExpression: '#status = :from',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':to': to, ':from': from, ':outcome': settledOutcome(item, to, outcome) },
  };
}

/** The in-memory item once its settle is written. */
export function markSettled(item: Item, to: ItemStatus, outcome: Record<string, unknown> | null) {
  item.outcome = settledOutcome(item, to, outcome);
  item.status = to;
}

const settledOutcome = (item: Item, to: ItemStatus, outcome: Record<string, unknown> | null) =>
  to === 'revert_conflict' ? { ...(item.outcome ?? {}), revert: outcome } : outcome;

/** An item settled without a record write; done alone, it goes through `alone` (default: settle). */
export function settleUnit(
  changesetId: string,
  item: Item,
  to: ItemStatus,
  outcome: Record<string, unknown> | null,
  options: { from?: ItemStatus; alone?: () => Promise<void> } = {},
): TransactUnit {
  const from = options.from ?? 'staged';
  return {
    actions: [{ Update: settleUpdate(changesetId, item, to, outcome, from) }],
    committed: () => markSettled(item, to, outcome),
    alone: options.alone ?? (() => settle(changesetId, item, to, outcome, from)),
  };
}

export function counts(items: Item[]) {
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

/** The status a changeset shows: a claim (applying, reverting) shows the status it is leaving. */
const shownStatus = (status: ChangesetStatus) =>
  status === 'applying' ? 'staged' : status === 'reverting' ? 'applied' : status;

/** The stored statuses a changeset showing `shown` may have. */
export const storedStatuses = (shown: ChangesetStatus): ChangesetStatus[] =>
  CHANGESET_STATUSES.filter((status) => shownStatus(status) === shown);

export function headerView(header: Header) {
  const status = shownStatus(header.status);
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

export function view(header: Header, items: Item[]) {
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

export function fieldsOf(entity: EntityName, record: RecordFields): RecordFields {
  const view = recordView({ ...record, entity });
  const members = entities[entity].members;
  return Object.fromEntries(
    [...Object.keys(entities[entity].fields), ...(members ? [members.field] : [])].map((field) => [
      field,
      view[field] ?? null,
    ]),
  );
}

/** The fields whose current value differs from the expected one, each with both values. */
export function movedFields(
  current: RecordFields,
  fields: string[],
  expected: Record<string, unknown> | null,
  expectedLabel: 'staged_before' | 'expected',
) {
  return fields
    .filter((field) => !sameValue(current[field] ?? null, expected?.[field] ?? null))
    .map((field) => ({ field, [expectedLabel]: expected?.[field] ?? null, current: current[field] ?? null }));
}
