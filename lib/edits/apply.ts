/** Applying a staged changeset item by item, each only if what it changes has not moved since staging. */
import type { EditsPrincipal } from '#lib/auth/principal.ts';
import { fieldsOf, type Header, type Item, itemGuard, movedFields } from '#lib/edits/changeset-store.ts';
import { type ItemWrite, writeChangeset } from '#lib/edits/changeset-writes.ts';
import type { Actor, RecordFields, RecordView } from '#lib/records/record-types.ts';
import { mergeIntoRecord, newRecordFields } from '#lib/records/writes/complete-fields.ts';
import type { Decision } from '#lib/records/writes/guarded-change.ts';

/** Ticked items are written, unticked ones skipped; see changeset-writes.ts for the steps. */
export function applyChangeset(user: EditsPrincipal, changesetId: string) {
  return writeChangeset(user, changesetId, {
    from: 'staged',
    claim: 'applying',
    to: 'applied',
    stamp: 'applied_at',
    refusal: 'only a staged changeset can be applied',
    itemFrom: 'staged',
    conflict: 'conflict',
    order: (items) => items.filter((item) => item.status === 'staged'),
    itemWrite: (header, item, actor) =>
      item.ticked ? applyWrite(header, item, actor) : { settle: 'skipped' },
  });
}

function applyWrite(header: Header, item: Item, actor: Actor): ItemWrite {
  return {
    change: {
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
    },
    written: (record) => {
      item.status = 'applied';
      item.outcome = { version: record.version };
      item.after = writtenValues(item, record);
    },
  };
}

/** What an applied item wrote: the changed fields' new values (update), the record (create). */
function writtenValues(item: Item, next: RecordFields | null): Record<string, unknown> | null {
  if (!next || item.action === 'delete') return null;
  if (item.action === 'create') return fieldsOf(item.entity, next);
  return Object.fromEntries(Object.keys(item.fields ?? {}).map((field) => [field, next[field] ?? null]));
}
