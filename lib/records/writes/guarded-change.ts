/**
 * Guarded changes for the edits API's apply, revert and undo: write one record only if its current
 * state still allows it, atomically with the Change History entry and the caller's guards.
 */

import { type EntityName, entities } from '#lib/records/entities.ts';
import { readForWrite } from '#lib/records/reads/record-reads.ts';
import {
  type Actor,
  type RecordFields,
  type RecordView,
  recordView,
  type StoredItem,
} from '#lib/records/record-types.ts';
import { findReferrers } from '#lib/records/write-planning/references.ts';
import { type PlannedWrite, planWrite, type TransactItem } from '#lib/records/write-planning/write-plan.ts';
import { commitPlanWithRetry } from '#lib/records/writes/commit.ts';

/** What to do with a record, decided from its current state (undefined when it does not exist). */
export type Decision =
  /** Write these complete fields (create if absent, else update), or delete it (null). */
  | { write: RecordFields | null; startVersion?: number }
  /** Leave it alone: it has moved since the change was prepared. */
  | { conflict: Record<string, unknown> };

export type GuardedOutcome =
  | { status: 'written'; record: RecordView; historyId: string }
  | { status: 'conflict'; details: Record<string, unknown> };

export interface GuardedChange {
  entity: EntityName;
  businessId: string;
  recordId: string;
  actor: Actor;
  decide(current: RecordView | undefined): Decision;
  /** Conditions on other items, built knowing the version and fields the record will have. */
  guards?: (nextVersion: number, next: RecordFields | null) => { item: TransactItem; message: string }[];
  historyExtras?: Record<string, unknown>;
  historyId?: string;
}

export type GuardedPlan =
  | { kind: 'write'; planned: PlannedWrite }
  | { kind: 'conflict'; details: Record<string, unknown> }
  /** A delete refused because the record is referenced: naming the referrers takes a Query. */
  | { kind: 'referenced' };

/**
 * The transaction of a guarded change, decided from the record's current state (undefined: it
 * does not exist) and, for an entity with a primary rule, the pointer read with it. No I/O.
 */
export function planGuardedChange(
  change: GuardedChange,
  current: StoredItem | undefined,
  pointer?: string | null,
): GuardedPlan {
  const decision = change.decide(current ? recordView(current) : undefined);
  if ('conflict' in decision) return { kind: 'conflict', details: decision.conflict };
  if (decision.write === null && !current)
    return { kind: 'conflict', details: { reason: 'the record no longer exists' } };
  if (decision.write === null && (current?.ref_count ?? 0) > 0) return { kind: 'referenced' };
  return {
    kind: 'write',
    planned: planWrite({
      entity: change.entity,
      businessId: change.businessId,
      recordId: change.recordId,
      current,
      next: decision.write ?? undefined,
      pointer,
      options: { actor: change.actor },
      guards: change.guards?.(current ? current.version + 1 : (decision.startVersion ?? 1), decision.write),
      historyExtras: change.historyExtras,
      startVersion: decision.startVersion,
      historyId: change.historyId,
    }),
  };
}

/**
 * Change one record only if `decide` says its current state allows it, atomically with the
 * Change History entry and the caller's `guards`. A concurrent write between the read and the
 * transaction makes it read and decide again, so the decision is always about what is written over.
 */
export async function applyGuardedChange(
  change: GuardedChange & {
    /**
     * The record as a batch read just found it (null: absent). The first attempt trusts it, saving
     * a read per record; the version condition catches a change since, and retries read afresh.
     */
    preloaded?: RecordFields | null;
  },
): Promise<GuardedOutcome> {
  let conflict: Record<string, unknown> | undefined;
  // A preloaded record lacks the primary pointer, which an entity with a primary rule plans from.
  let preloaded = entities[change.entity].primary ? undefined : change.preloaded;
  const planned = await commitPlanWithRetry(async () => {
    conflict = undefined;
    const { current, pointer } =
      preloaded === undefined
        ? await readForWrite(change.entity, change.businessId, change.recordId, { allowMissing: true })
        : { current: (preloaded ?? undefined) as StoredItem | undefined, pointer: undefined };
    preloaded = undefined;
    // Read together with the primary pointer where there is one, so a restored primary is handled too.
    const plan = planGuardedChange(change, current, pointer);
    if (plan.kind === 'write') return plan.planned;
    conflict =
      plan.kind === 'conflict'
        ? plan.details
        : {
            reason: 'the record is referenced',
            referrers: await findReferrers(change.entity, change.businessId, change.recordId),
          };
    throw new GuardedConflict();
  }).catch((error: unknown) => {
    if (error instanceof GuardedConflict) return undefined;
    throw error;
  });
  if (!planned) return { status: 'conflict', details: conflict ?? {} };
  return { status: 'written', record: planned.result, historyId: planned.historyId };
}

class GuardedConflict extends Error {}
