import { describe, expect, it } from 'vitest';
import { MAX_ACTIONS, planWaves, type TransactAction } from '#lib/db/transact-waves.ts';

const update = (pk: string, sk = 'X'): TransactAction => ({
  Update: { TableName: 't', Key: { pk, sk }, UpdateExpression: 'SET a = :a' },
});
/** An applied item: its record, a history entry and its changeset item, all its own. */
const item = (n: number) => ({ n, actions: [update(`R${n}`), update(`H${n}`), update(`I${n}`)] });
const shape = (waves: ReturnType<typeof planWaves<{ n: number; actions: TransactAction[] | null }>>) =>
  waves.map((wave) =>
    'alone' in wave ? `alone ${wave.alone.n}` : wave.batches.map((b) => b.map((u) => u.n)),
  );

describe('planWaves', () => {
  it('puts 100 items of 3 distinct actions in one wave of 4 transactions of at most 100 actions', () => {
    const waves = planWaves(Array.from({ length: 100 }, (_, i) => item(i)));
    expect(waves).toHaveLength(1);
    const [wave] = waves;
    const batches = wave && 'batches' in wave ? wave.batches : [];
    expect(batches.map((batch) => batch.length)).toEqual([33, 33, 33, 1]);
    for (const batch of batches)
      expect(batch.flatMap((unit) => unit.actions).length).toBeLessThanOrEqual(MAX_ACTIONS);
    expect(batches.flat().map((unit) => unit.n)).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  it('starts a new wave when a unit touches an item already in the wave, keeping the order', () => {
    const shared = (n: number) => ({ n, actions: [update(`R${n}`), update('COUNT', 'faq')] });
    expect(shape(planWaves([item(0), shared(1), item(2), shared(3), item(4)]))).toEqual([
      [[0, 1, 2]],
      [[3, 4]],
    ]);
  });

  it('does a unit without actions, or one DynamoDB would refuse, alone between the waves', () => {
    const twice = { n: 2, actions: [update('R2'), update('R2')] };
    const tooMany = { n: 4, actions: Array.from({ length: MAX_ACTIONS + 1 }, (_, i) => update(`B${i}`)) };
    expect(shape(planWaves([item(0), { n: 1, actions: null }, twice, item(3), tooMany, item(5)]))).toEqual([
      [[0]],
      'alone 1',
      'alone 2',
      [[3]],
      'alone 4',
      [[5]],
    ]);
  });

  it('keys Put items, updates, deletes and condition checks alike', () => {
    const put = { n: 0, actions: [{ Put: { TableName: 't', Item: { pk: 'A', sk: 'B', x: 1 } } }] };
    const check = {
      n: 1,
      actions: [{ ConditionCheck: { TableName: 't', Key: { pk: 'A', sk: 'B' }, ConditionExpression: 'x' } }],
    };
    const remove = { n: 2, actions: [{ Delete: { TableName: 't', Key: { pk: 'A', sk: 'C' } } }] };
    expect(shape(planWaves([put, check, remove]))).toEqual([[[0]], [[1, 2]]]);
  });
});
