/**
 * How units of transaction actions are grouped into transactions (pure: no I/O, unit-tested):
 * DynamoDB's limits per transaction, and the order of units that touch the same item.
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';

export type TransactAction = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** DynamoDB's limit of actions per transaction. */
export const MAX_ACTIONS = 100;
/** Below DynamoDB's 4 MB per transaction, measured on the JSON of the actions (a close stand-in). */
const MAX_BYTES = 3_000_000;

/** A step of the plan: transactions that may run at once, or one unit done alone. */
export type Wave<U> = { batches: U[][] } | { alone: U };

/**
 * Group units, in order, into waves of transactions. A transaction may not touch an item twice, and
 * units that share an item must keep their order; so a wave holds units whose items are all
 * distinct, and a unit touching an item already in the wave starts the next wave. Within a wave,
 * units fill transactions up to MAX_ACTIONS (and MAX_BYTES).
 */
export function planWaves<U extends { actions: TransactAction[] | null }>(units: U[]): Wave<U>[] {
  const waves: Wave<U>[] = [];
  let batches: U[][] = [];
  let touched = new Set<string>();
  let actions = 0;
  let bytes = 0;
  const closeWave = () => {
    if (batches.length > 0) waves.push({ batches });
    batches = [];
    touched = new Set();
  };
  for (const unit of units) {
    const unitKeys = unit.actions?.map(keyOf);
    const unitBytes = unit.actions ? JSON.stringify(unit.actions).length : 0;
    if (
      !unit.actions ||
      !unitKeys ||
      unit.actions.length > MAX_ACTIONS ||
      unitBytes > MAX_BYTES ||
      new Set(unitKeys).size !== unitKeys.length
    ) {
      closeWave();
      waves.push({ alone: unit });
      continue;
    }
    if (unitKeys.some((key) => touched.has(key))) closeWave();
    const current = batches.at(-1);
    if (!current || actions + unit.actions.length > MAX_ACTIONS || bytes + unitBytes > MAX_BYTES) {
      batches.push([unit]);
      actions = 0;
      bytes = 0;
    } else {
      current.push(unit);
    }
    actions += unit.actions.length;
    bytes += unitBytes;
    for (const key of unitKeys) touched.add(key);
  }
  closeWave();
  return waves;
}

/** The item an action touches, as `pk sk` (one table). */
function keyOf(action: TransactAction): string {
  const key =
    action.Put?.Item ?? action.Update?.Key ?? action.Delete?.Key ?? action.ConditionCheck?.Key ?? {};
  return `${String(key.pk)}\u0000${String(key.sk)}`;
}
