/**
 * Applying and reverting a changeset: one shape, plan → write in batches → settle, which apply.ts
 * and revert.ts fill in with what an item means to each. Four sequential DynamoDB round trips
 * whatever the number of items, as long as no record moves meanwhile:
 *
 * 1. Plan, read the changeset: one Query of its partition (header and items), consistent. The
 *    header must be the caller's and in the status the operation starts from (or holding its
 *    claim, which a lapsed lease lets another call take over).
 * 2. Plan, read the records and claim, together: the session's touch, one BatchGetItem of the
 *    caller's access and every record an item writes, and the claim (a conditional status move,
 *    e.g. staged → applying) that makes the operation happen once: of two concurrent calls, one
 *    claims and the other gets a 409. If the session or the access check refuses, the claim is
 *    given back before the refusal is answered. Each item is then decided from its record as read:
 *    a write (its record, its Change History entry and its own status, conditioned on the
 *    record's version and on the item's status) or a conflict (only its status and reason).
 * 3. Write in batches: every item's actions, several items per TransactWriteItems, the
 *    transactions sent together (lib/db/transact-batches.ts). An item's actions commit together
 *    or not at all, so each item's outcome is exact: a transaction cancelled by some items'
 *    conditions is sent again without them, and those items are done alone from a fresh read
 *    (more round trips, only for items whose records moved since step 2).
 * 4. Settle: the header leaves its claim for its end status (e.g. applied) with its timestamp.
 *    Every item has its outcome by then; a call that dies before this leaves the claim, and the
 *    next call after the lease finishes the items still waiting, as the item conditions allow.
 */
import type { EditsPrincipal } from '#lib/auth/principal.ts';
import { keys } from '#lib/db/keys.ts';
import { commitUnits, type TransactUnit } from '#lib/db/transact-batches.ts';
import { actorOf } from '#lib/edits/actor.ts';
import {
  type ChangesetStatus,
  counts,
  type Header,
  type Item,
  type ItemStatus,
  loadOwn,
  moveStatus,
  releaseClaim,
  settle,
  settleUnit,
  view,
} from '#lib/edits/changeset-store.ts';
import { useSessionOfBusiness } from '#lib/edits/sessions.ts';
import { ConflictError } from '#lib/http/errors.ts';
import { logger } from '#lib/observability/logger.ts';
import { SIGNAL_FIELDS } from '#lib/observability/signal-fields.ts';
import { entities } from '#lib/records/entities.ts';
import type { Actor, RecordFields, RecordView, StoredItem } from '#lib/records/record-types.ts';
import {
  applyGuardedChange,
  type GuardedChange,
  planGuardedChange,
} from '#lib/records/writes/guarded-change.ts';

/** What one item of the changeset does: write its record, or only take a status. */
export type ItemWrite = { change: GuardedChange; written(record: RecordView): void } | { settle: ItemStatus };

/** An operation on a whole changeset, in the shape above. */
export interface ChangesetWrite {
  /** The header's statuses: where it starts, the claim it holds meanwhile, where it ends. */
  from: ChangesetStatus;
  claim: ChangesetStatus;
  to: ChangesetStatus;
  stamp: 'applied_at' | 'reverted_at';
  /** Why another status is refused, e.g. "only a staged changeset can be applied". */
  refusal: string;
  /** The items' statuses: the one an item is written from, and the one it takes on a conflict. */
  itemFrom: ItemStatus;
  conflict: ItemStatus;
  /** The items to settle (those in `itemFrom`), in the order they are written. */
  order(items: Item[]): Item[];
  itemWrite(header: Header, item: Item, actor: Actor): ItemWrite;
}

export async function writeChangeset(user: EditsPrincipal, changesetId: string, operation: ChangesetWrite) {
  const { header, items } = await loadOwn(user, changesetId);
  const actor = actorOf(user);
  const planned = operation
    .order(items)
    .map((item) => ({ item, write: operation.itemWrite(header, item, actor) }));
  const recordKeys = planned.flatMap(({ item, write }) =>
    'change' in write ? [keys.record(header.business_id, item.entity, item.record_id)] : [],
  );
  const claimable = header.status === operation.from || header.status === operation.claim;
  const claimedAt = new Date().toISOString();
  const [access, claim] = await Promise.allSettled([
    useSessionOfBusiness(user, header.session_id, header.business_id, recordKeys),
    // A changeset in another status is refused below, after the session's and access's refusals.
    claimable
      ? moveStatus(changesetId, [operation.from], operation.claim, { claimed_at: claimedAt }, operation.claim)
      : Promise.resolve(),
  ]);
  if (access.status === 'rejected') {
    if (claimable && claim.status === 'fulfilled') {
      // If this fails too, the claim lapses with its lease; the refusal is still the answer.
      await releaseClaim(changesetId, operation.claim, claimedAt, {
        status: header.status,
        claimed_at: header.claimed_at ?? null,
      }).catch(() => undefined);
    }
    throw access.reason;
  }
  if (!claimable) throw new ConflictError(`The changeset is ${header.status}; ${operation.refusal}`);
  if (claim.status === 'rejected') throw claim.reason;

  const current = new Map(access.value.records.map((record) => [`${record.entity}#${record.id}`, record]));
  await commitUnits(
    planned.map(({ item, write }) =>
      'change' in write
        ? guardedUnit(header, item, operation, write, current.get(`${item.entity}#${item.record_id}`))
        : settleUnit(header.id, item, write.settle, null, { from: operation.itemFrom }),
    ),
  );

  const now = new Date().toISOString();
  await moveStatus(changesetId, [operation.claim], operation.to, { [operation.stamp]: now });
  const result = {
    ...view({ ...header, status: operation.to, [operation.stamp]: now }, items),
    counts: counts(items),
  };
  // Counted by a metric filter: changesets applied and reverted.
  logger.info(`Changeset ${operation.to}`, {
    [SIGNAL_FIELDS.changesetEvent]: operation.to,
    changeset_id: changesetId,
    business_id: header.business_id,
    counts: result.counts,
  });
  return result;
}

/**
 * One item's record write as a unit of a batched commit, decided from the record as read in step
 * 2. Done alone instead (reading the record afresh, retrying on a concurrent write) when its
 * transaction refused it, or when it cannot be batched: a record of an entity with a primary rule
 * is planned with its pointer, read with it, and a refused delete of a referenced record names its
 * referrers, which takes a Query.
 */
function guardedUnit(
  header: Header,
  item: Item,
  operation: ChangesetWrite,
  write: Extract<ItemWrite, { change: GuardedChange }>,
  current: StoredItem | undefined,
): TransactUnit {
  const alone = async (preloaded: RecordFields | null | undefined) => {
    const outcome = await applyGuardedChange({ ...write.change, preloaded });
    if (outcome.status === 'written') write.written(outcome.record);
    else await settle(header.id, item, operation.conflict, outcome.details, operation.itemFrom);
  };
  const afresh = () => alone(undefined);
  const plan = entities[item.entity].primary ? undefined : planGuardedChange(write.change, current);
  if (plan?.kind === 'conflict') {
    return settleUnit(header.id, item, operation.conflict, plan.details, {
      from: operation.itemFrom,
      alone: afresh,
    });
  }
  if (plan?.kind !== 'write') {
    return { actions: null, committed: () => undefined, alone: () => alone(current ?? null) };
  }
  return {
    actions: plan.planned.input.TransactItems ?? [],
    committed: () => write.written(plan.planned.result),
    alone: afresh,
  };
}
