import { describe, expect, it, vi } from 'vitest';
import { keys } from '#lib/db/keys.ts';
import { entities, type PrimaryRule } from '#lib/records/entities.ts';
import type { StoredItem } from '#lib/records/record-types.ts';
import { planPrimary } from '#lib/records/write-planning/primary-pointer.ts';
import type { ActionRole, TransactItem } from '#lib/records/write-planning/write-plan.ts';

// The module reads the table name at load (its DynamoDB client); planPrimary makes no call.
vi.hoisted(() => {
  process.env.TABLE_NAME ??= 'unit-test-table';
});

const rule = entities.location.primary as PrimaryRule;
const stored = (isPrimary: boolean) => ({ is_primary: isPrimary }) as unknown as StoredItem;

function plan(
  current: StoredItem | undefined,
  next: Record<string, unknown> | undefined,
  pointer: string | null,
) {
  const actions: TransactItem[] = [];
  const histories: Record<string, unknown>[] = [];
  const add = (_role: ActionRole, item: TransactItem) => actions.push(item);
  planPrimary(
    'location',
    rule,
    'b1',
    'l2',
    current,
    next,
    pointer,
    { type: 'user', id: 'u1' },
    '2026-01-01T00:00:00Z',
    add,
    histories,
  );
  return { actions, histories };
}

describe('the primary rule', () => {
  it('is a property of the location definition only', () => {
    const withRule = Object.values(entities).filter((definition) => definition.primary);
    expect(withRule.map((definition) => definition.name)).toEqual(['location']);
    expect(rule.pointer('b1')).toEqual(keys.primaryLocation('b1'));
  });

  it('plans nothing when the record neither becomes nor stops being primary', () => {
    expect(plan(stored(false), { is_primary: false }, 'l1').actions).toEqual([]);
    expect(plan(stored(true), { is_primary: true }, 'l2').actions).toEqual([]);
  });

  it('points at a new primary only if no pointer exists yet', () => {
    const { actions } = plan(undefined, { is_primary: true }, null);
    expect(actions).toEqual([
      {
        Put: {
          TableName: expect.any(String),
          Item: { ...keys.primaryLocation('b1'), location_id: 'l2' },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ]);
  });

  it('moves the pointer from the old primary, demotes it and records that in its history', () => {
    const { actions, histories } = plan(stored(false), { is_primary: true }, 'l1');
    expect(actions[0]?.Put?.ConditionExpression).toBe('#pointed = :seen');
    expect(actions[0]?.Put?.ExpressionAttributeNames).toEqual({ '#pointed': 'location_id' });
    expect(actions[0]?.Put?.ExpressionAttributeValues).toEqual({ ':seen': 'l1' });
    expect(actions[1]?.Update?.Key).toEqual(keys.record('b1', 'location', 'l1'));
    expect(actions[1]?.Update?.ExpressionAttributeNames).toMatchObject({ '#primary': 'is_primary' });
    expect(histories).toHaveLength(1);
    expect(histories[0]).toMatchObject({ entity: 'location', record_id: 'l1' });
  });

  it('removes the pointer, only while it still names the record, when the primary is cleared or deleted', () => {
    for (const next of [{ is_primary: false }, undefined]) {
      const { actions } = plan(stored(true), next, 'l2');
      expect(actions).toEqual([
        {
          Delete: {
            TableName: expect.any(String),
            Key: keys.primaryLocation('b1'),
            ConditionExpression: '#pointed = :me',
            ExpressionAttributeNames: { '#pointed': 'location_id' },
            ExpressionAttributeValues: { ':me': 'l2' },
          },
        },
      ]);
    }
  });
});
