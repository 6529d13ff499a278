/** Reverting an applied changeset, and the undo decision it shares with undoing one history entry. */
import type { EditsPrincipal } from '#lib/auth/principal.ts';
import { keys } from '#lib/db/keys.ts';
import type { TransactUnit } from '#lib/db/transact-batches.ts';
import { commitUnits } from '#lib/db/transact-batches.ts';
import { actorOf } from '#lib/edits/actor.ts';
import {
  counts,
  type Header,
  type Item,
  itemGuard,
  loadOwn,
  movedFields,
  moveStatus,
  settle,
  settleUnit,
  view,
} from '#lib/edits/changeset-store.ts';
import { useSessionOfBusiness } from '#lib/edits/sessions.ts';
import { ConflictError } from '#lib/http/errors.ts';
import { logger } from '#lib/observability/logger.ts';
import { SIGNAL_FIELDS } from '#lib/observability/signal-fields.ts';
import { setIntoRecord } from '#lib/records/complete-fields.ts';
import type { EntityName } from '#lib/records/entities.ts';
import {
  applyGuardedChange,
  type Decision,
  type GuardedChange,
  planGuardedChange,
} from '#lib/records/guarded-change.ts';
import type { Actor, RecordFields, RecordView, StoredItem } from '#lib/records/record-types.ts';

export async function revertChangeset(user: EditsPrincipal, changesetId: string) {
  const { header, items } = await loadOwn(user, changesetId);
  const applied = items.filter((item) => item.status === 'applied');
  // The session's touch and one BatchGetItem of the access check and every applied record go out together.
  const { alsoFound } = await useSessionOfBusiness(
    user,
    header.session_id,
    header.business_id,
    applied.map((item) => keys.record(header.business_id, item.entity, item.record_id)),
  );
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
  const actor = actorOf(user);
  const current = new Map(alsoFound.map((record) => [`${record.entity}#${record.id}`, record as StoredItem]));
  // Newest first, several items per transaction (see apply); a refused item is reverted alone.
  await commitUnits(
    [...items]
      .reverse()
      .filter((item) => item.status === 'applied')
      .map((item) => revertUnit(header, item, actor, current.get(`${item.entity}#${item.record_id}`))),
  );
  const now = new Date().toISOString();
  await moveStatus(changesetId, ['reverting'], 'reverted', { reverted_at: now });
  const result = {
    ...view({ ...header, status: 'reverted', reverted_at: now }, items),
    counts: counts(items),
  };
  logger.info('Changeset reverted', {
    [SIGNAL_FIELDS.changesetEvent]: 'reverted',
    changeset_id: changesetId,
    business_id: header.business_id,
    counts: result.counts,
  });
  return result;
}

function revertUnit(header: Header, item: Item, actor: Actor, current: StoredItem | undefined): TransactUnit {
  const change: GuardedChange = {
    entity: item.entity,
    businessId: header.business_id,
    recordId: item.record_id,
    actor,
    decide: (record) =>
      undoDecision(item.entity, item.action, item.before, item.after, Number(item.outcome?.version), record),
    historyExtras: { changeset_id: header.id, revert_of: item.id },
    guards: () => [itemGuard(header.id, item, 'reverted', {}, 'applied')],
  };
  const alone = async (preloaded: RecordFields | null | undefined) => {
    const outcome = await applyGuardedChange({ ...change, preloaded });
    if (outcome.status === 'written') item.status = 'reverted';
    else await settle(header.id, item, 'revert_conflict', outcome.details, 'applied');
  };
  // A location also needs the primary pointer; it is reverted alone.
  const plan = item.entity === 'location' ? undefined : planGuardedChange(change, current);
  if (plan?.kind === 'conflict') {
    return settleUnit(header.id, item, 'revert_conflict', plan.details, {
      from: 'applied',
      alone: () => alone(undefined),
    });
  }
  if (plan?.kind !== 'write')
    return { actions: null, committed: () => undefined, alone: () => alone(current ?? null) };
  return {
    actions: plan.planned.input.TransactItems ?? [],
    committed: () => {
      item.status = 'reverted';
    },
    alone: () => alone(undefined),
  };
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
