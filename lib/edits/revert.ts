/** Reverting an applied changeset, and the undo decision it shares with undoing one history entry. */
import type { EditsPrincipal } from '#lib/auth/principal.ts';
import { itemGuard, movedFields } from '#lib/edits/changeset-store.ts';
import { writeChangeset } from '#lib/edits/changeset-writes.ts';
import type { EntityName } from '#lib/records/entities.ts';
import type { RecordView } from '#lib/records/record-types.ts';
import { setIntoRecord } from '#lib/records/writes/complete-fields.ts';
import type { Decision } from '#lib/records/writes/guarded-change.ts';

/** Applied items are taken back newest first, where what they wrote still stands; see changeset-writes.ts. */
export function revertChangeset(user: EditsPrincipal, changesetId: string) {
  return writeChangeset(user, changesetId, {
    from: 'applied',
    claim: 'reverting',
    to: 'reverted',
    stamp: 'reverted_at',
    refusal: 'only an applied changeset can be reverted',
    itemFrom: 'applied',
    conflict: 'revert_conflict',
    order: (items) => [...items].reverse().filter((item) => item.status === 'applied'),
    itemWrite: (header, item, actor) => ({
      change: {
        entity: item.entity,
        businessId: header.business_id,
        recordId: item.record_id,
        actor,
        decide: (record) =>
          undoDecision(
            item.entity,
            item.action,
            item.before,
            item.after,
            Number(item.outcome?.version),
            record,
          ),
        historyExtras: { changeset_id: header.id, revert_of: item.id },
        guards: () => [itemGuard(header.id, item, 'reverted', {}, 'applied')],
      },
      written: () => {
        item.status = 'reverted';
      },
    }),
  });
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
