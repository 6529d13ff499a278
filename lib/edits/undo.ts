import { v7 as uuidv7 } from 'uuid';
import { readAlongsideAccess } from '#lib/auth/alongside-access.ts';
import { assertHoldsBusiness } from '#lib/auth/business-access.ts';
import type { EditsPrincipal } from '#lib/auth/principal.ts';
import { tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { actorOf } from '#lib/edits/actor.ts';
import { undoDecision } from '#lib/edits/revert.ts';
import { ConflictError, NotFoundError } from '#lib/http/errors.ts';
import type { EntityName } from '#lib/records/entities.ts';
import { applyGuardedChange } from '#lib/records/writes/guarded-change.ts';

/**
 * Undo one Change History entry of a business the caller holds, only if what it wrote still stands. The undo is itself a new
 * entry, written in the same transaction that marks the old one undone — conditioned on it not
 * being undone yet, so two undos cannot both happen. Undoing an undo is undoing that newer entry.
 */
export async function undoChange(user: EditsPrincipal, businessId: string, entryId: string) {
  // The entry is read beside the access check; the write below waits for both.
  const { result: entry } = await readAlongsideAccess(
    (reads) => assertHoldsBusiness(user, businessId, reads),
    (reads) => reads.get(keys.history(businessId, entryId), { consistent: true }),
  );
  if (!entry) throw new NotFoundError(`No change ${entryId} in this business's history`);
  if (entry.undone_by)
    throw new ConflictError('This change has already been undone', { undone_by: entry.undone_by });
  const undoId = uuidv7();
  const outcome = await applyGuardedChange({
    entity: entry.entity as EntityName,
    businessId,
    recordId: String(entry.record_id),
    actor: actorOf(user),
    decide: (current) =>
      undoDecision(
        entry.entity as EntityName,
        entry.action as 'create' | 'update' | 'delete',
        (entry.before as Record<string, unknown> | undefined) ?? null,
        (entry.after as Record<string, unknown> | undefined) ?? null,
        Number(entry.version),
        current,
      ),
    historyId: undoId,
    historyExtras: { undo_of: entryId },
    guards: () => [
      {
        message: 'This change has already been undone',
        item: {
          Update: {
            TableName: tableName,
            Key: keys.history(businessId, entryId),
            UpdateExpression: 'SET undone_by = :undo',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(undone_by)',
            ExpressionAttributeValues: { ':undo': undoId },
          },
        },
      },
    ],
  });
  if (outcome.status === 'conflict') {
    throw new ConflictError('The change cannot be undone: what it wrote has changed since', outcome.details);
  }
  return { entry_id: undoId, undo_of: entryId, record: outcome.record };
}
