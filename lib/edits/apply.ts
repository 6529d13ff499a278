/** Applying a staged changeset item by item, each only if what it changes has not moved since staging. */
import type { EditsPrincipal } from '#lib/auth/principal.ts';
import { keys } from '#lib/db/keys.ts';
import { commitUnits, type TransactUnit } from '#lib/db/transact-batches.ts';
import { actorOf } from '#lib/edits/actor.ts';
import {
  counts,
  fieldsOf,
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
import { mergeIntoRecord, newRecordFields } from '#lib/records/complete-fields.ts';
import {
  applyGuardedChange,
  type Decision,
  type GuardedChange,
  planGuardedChange,
} from '#lib/records/guarded-change.ts';
import type { Actor, RecordFields, RecordView, StoredItem } from '#lib/records/record-types.ts';

export async function applyChangeset(user: EditsPrincipal, changesetId: string) {
  const { header, items } = await loadOwn(user, changesetId);
  const toApply = items.filter((item) => item.status === 'staged' && item.ticked);
  // The session's touch and one BatchGetItem of the access check and every record the ticked items
  // touch go out together.
  const { alsoFound } = await useSessionOfBusiness(
    user,
    header.session_id,
    header.business_id,
    toApply.map((item) => keys.record(header.business_id, item.entity, item.record_id)),
  );
  if (header.status !== 'staged' && header.status !== 'applying') {
    throw new ConflictError(`The changeset is ${header.status}; only a staged changeset can be applied`);
  }
  await moveStatus(changesetId, ['staged'], 'applying', { claimed_at: new Date().toISOString() }, 'applying');
  const actor = actorOf(user);
  const current = new Map(alsoFound.map((record) => [`${record.entity}#${record.id}`, record as StoredItem]));
  // Several items per transaction, several transactions at once; an item whose conditions fail is
  // applied alone from a fresh read, as it would have been without batching.
  await commitUnits(
    items
      .filter((item) => item.status === 'staged')
      .map((item) =>
        item.ticked
          ? applyUnit(header, item, actor, current.get(`${item.entity}#${item.record_id}`))
          : settleUnit(header.id, item, 'skipped', null),
      ),
  );
  const now = new Date().toISOString();
  await moveStatus(changesetId, ['applying'], 'applied', { applied_at: now });
  const result = { ...view({ ...header, status: 'applied', applied_at: now }, items), counts: counts(items) };
  logger.info('Changeset applied', {
    [SIGNAL_FIELDS.changesetEvent]: 'applied',
    changeset_id: changesetId,
    business_id: header.business_id,
    counts: result.counts,
  });
  return result;
}

/** One ticked item as a unit of a batched commit, planned from the record as just read. */
function applyUnit(header: Header, item: Item, actor: Actor, current: StoredItem | undefined): TransactUnit {
  const change = itemChange(header, item, actor);
  // Refused: read the record afresh and decide again.
  const afresh = () => applyItem(header, item, actor, undefined);
  // A location also needs the primary pointer, a referenced delete its referrers: done alone.
  const plan = item.entity === 'location' ? undefined : planGuardedChange(change, current);
  if (plan?.kind === 'conflict')
    return settleUnit(header.id, item, 'conflict', plan.details, { alone: afresh });
  if (plan?.kind !== 'write') {
    return {
      actions: null,
      committed: () => undefined,
      alone: () => applyItem(header, item, actor, current ?? null),
    };
  }
  return {
    actions: plan.planned.input.TransactItems ?? [],
    committed: () => markApplied(item, plan.planned.result),
    alone: afresh,
  };
}

function itemChange(header: Header, item: Item, actor: Actor): GuardedChange {
  return {
    entity: item.entity,
    businessId: header.business_id,
    recordId: item.record_id,
    actor,
    decide: (current: RecordView | undefined): Decision => {
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
    },
    historyExtras: { changeset_id: header.id },
    // The item's status, outcome and written values change in the record's own transaction.
    guards: (version, next) => [
      itemGuard(header.id, item, 'applied', { version }, 'staged', writtenValues(item, next)),
    ],
  };
}

/** One item on its own: from `preloaded` first (undefined: read it), retried from fresh reads. */
async function applyItem(
  header: Header,
  item: Item,
  actor: Actor,
  preloaded: RecordFields | null | undefined,
): Promise<void> {
  const outcome = await applyGuardedChange({ ...itemChange(header, item, actor), preloaded });
  if (outcome.status === 'conflict') {
    await settle(header.id, item, 'conflict', outcome.details);
    return;
  }
  markApplied(item, outcome.record);
}

function markApplied(item: Item, record: RecordView): void {
  item.status = 'applied';
  item.outcome = { version: record.version };
  item.after = writtenValues(item, record);
}

/** What an applied item wrote: the changed fields' new values (update), the record (create). */
function writtenValues(item: Item, next: RecordFields | null): Record<string, unknown> | null {
  if (!next || item.action === 'delete') return null;
  if (item.action === 'create') return fieldsOf(item.entity, next);
  return Object.fromEntries(Object.keys(item.fields ?? {}).map((field) => [field, next[field] ?? null]));
}
