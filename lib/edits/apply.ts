/** Applying a staged changeset item by item, each only if what it changes has not moved since staging. */
import type { EditsPrincipal } from '#lib/auth/principal.ts';
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
  view,
} from '#lib/edits/changeset-store.ts';
import { useSession } from '#lib/edits/sessions.ts';
import { ConflictError } from '#lib/http/errors.ts';
import { mergeIntoRecord, newRecordFields } from '#lib/records/complete-fields.ts';
import { applyGuardedChange, type Decision } from '#lib/records/guarded-change.ts';
import { readRecords } from '#lib/records/record-reads.ts';
import type { Actor, RecordFields, RecordView } from '#lib/records/record-types.ts';

export async function applyChangeset(user: EditsPrincipal, changesetId: string) {
  const { header, items } = await loadOwn(user, changesetId);
  await useSession(user, header.session_id);
  if (header.status !== 'staged' && header.status !== 'applying') {
    throw new ConflictError(`The changeset is ${header.status}; only a staged changeset can be applied`);
  }
  await moveStatus(changesetId, ['staged'], 'applying', { claimed_at: new Date().toISOString() }, 'applying');
  const actor = actorOf(user);
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
