/**
 * Many small all-or-nothing units (an applied changeset item: its record, history entry and
 * status) committed several to a TransactWriteItems, several transactions at once, without any
 * unit losing its own outcome: a cancellation names the units whose conditions failed, the rest
 * are sent again, and the named ones are handed back to be done alone.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#lib/db/client.ts';
import { planWaves, type TransactAction } from '#lib/db/transact-waves.ts';

/** Transactions in flight at once. */
const CONCURRENCY = 4;

export interface TransactUnit {
  /** Committed together or not at all; null: this unit can only be done alone (see `alone`). */
  actions: TransactAction[] | null;
  /** Its actions committed. */
  committed(): void;
  /** Its actions were refused, or it has none: do it on its own, reading afresh. */
  alone(): Promise<void>;
}

/**
 * Commit every unit: wave after wave, each wave's transactions CONCURRENCY at a time; the units a
 * cancellation names are done alone, in their order, before the next wave starts.
 */
export async function commitUnits(units: TransactUnit[]): Promise<void> {
  for (const wave of planWaves(units)) {
    if ('alone' in wave) {
      await wave.alone.alone();
      continue;
    }
    const refused = new Set<TransactUnit>();
    const queue = [...wave.batches];
    const worker = async () => {
      for (let batch = queue.shift(); batch; batch = queue.shift()) {
        for (const unit of await commitBatch(batch)) refused.add(unit);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
    for (const batch of wave.batches) {
      for (const unit of batch) if (refused.has(unit)) await unit.alone();
    }
  }
}

/**
 * One transaction of several units. On a cancellation, the units none of whose actions failed are
 * sent again without the others; returns the units that were refused.
 */
async function commitBatch(batch: TransactUnit[]): Promise<TransactUnit[]> {
  const refused: TransactUnit[] = [];
  let pending = batch;
  while (pending.length > 0) {
    try {
      await dynamo.send(new TransactWriteCommand({ TransactItems: pending.flatMap((u) => u.actions ?? []) }));
      for (const unit of pending) unit.committed();
      return refused;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      const innocent: TransactUnit[] = [];
      let offset = 0;
      for (const unit of pending) {
        const count = unit.actions?.length ?? 0;
        const own = reasons.slice(offset, offset + count);
        offset += count;
        const failed = own.length < count || own.some((reason) => reason.Code && reason.Code !== 'None');
        (failed ? refused : innocent).push(unit);
      }
      // No reason names a unit (none given): every unit is done alone.
      if (innocent.length === pending.length) return [...refused, ...innocent];
      pending = innocent;
    }
  }
  return refused;
}
