/** Reverting an applied changeset, and the undo decision it shares with undoing one history entry. */
import type { EditsPrincipal } from '#lib/auth/principal.ts';
import { actorOf } from '#lib/edits/actor.ts';
import {
  counts,
  itemGuard,
  loadOwn,
  movedFields,
  moveStatus,
  settle,
  view,
} from '#lib/edits/changeset-store.ts';
import { useSession } from '#lib/edits/sessions.ts';
import { ConflictError } from '#lib/http/errors.ts';
import { setIntoRecord } from '#lib/records/complete-fields.ts';
import type { EntityName } from '#lib/records/entities.ts';
import { applyGuardedChange, type Decision } from '#lib/records/guarded-change.ts';
import { readRecords } from '#lib/records/record-reads.ts';
import type { RecordView } from '#lib/records/record-types.ts';

export async function revertChangeset(user: EditsPrincipal, changesetId: string) {
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
  const actor = actorOf(user);
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
