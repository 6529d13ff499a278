import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextRunAt, nextSchedule } from '#lib/blog/schedule-rules.ts';
import { FREQUENCY_TYPES } from '#lib/blog/schemas.ts';

const DAY_MS = 86_400_000;
const anyDate = fc.date({
  min: new Date('2000-01-01T00:00:00Z'),
  max: new Date('2100-01-01T00:00:00Z'),
  noInvalidDate: true,
});

describe('nextRunAt', () => {
  it('adds 1, 7 or 14 days in whole seconds', () => {
    fc.assert(
      fc.property(anyDate, (from) => {
        const base = Math.floor(from.getTime() / 1000) * 1000;
        expect(nextRunAt('daily', from).getTime()).toBe(base + DAY_MS);
        expect(nextRunAt('weekly', from).getTime()).toBe(base + 7 * DAY_MS);
        expect(nextRunAt('biweekly', from).getTime()).toBe(base + 14 * DAY_MS);
      }),
    );
  });

  it('moves monthly to the next calendar month, keeping the day when it exists', () => {
    fc.assert(
      fc.property(anyDate, (from) => {
        const next = nextRunAt('monthly', from);
        const monthsApart =
          (next.getUTCFullYear() - from.getUTCFullYear()) * 12 + next.getUTCMonth() - from.getUTCMonth();
        expect(monthsApart).toBe(1);
        const lastDayOfNextMonth = new Date(
          Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 0),
        ).getUTCDate();
        expect(next.getUTCDate()).toBe(Math.min(from.getUTCDate(), lastDayOfNextMonth));
        expect(next.getUTCHours()).toBe(from.getUTCHours());
      }),
    );
  });

  it('clamps 31 January to the end of February', () => {
    expect(nextRunAt('monthly', new Date('2027-01-31T10:00:00Z')).toISOString()).toBe(
      '2027-02-28T10:00:00.000Z',
    );
    expect(nextRunAt('monthly', new Date('2028-01-31T10:00:00Z')).toISOString()).toBe(
      '2028-02-29T10:00:00.000Z',
    );
  });
});

describe('nextSchedule', () => {
  const businessId = '3f1c2b0e-8d6a-4a52-9a3e-1b2c3d4e5f60';
  const input = fc.record({
    auto_publish: fc.boolean(),
    frequency_type: fc.constantFrom(...FREQUENCY_TYPES),
    is_enabled: fc.boolean(),
  });

  it('is idempotent: applying the same input twice returns the very same schedule', () => {
    fc.assert(
      fc.property(input, anyDate, anyDate, (body, first, later) => {
        const created = nextSchedule(businessId, undefined, body, first);
        expect(nextSchedule(businessId, created, body, later)).toBe(created);
      }),
    );
  });

  it('keeps next_run_at while enabled at the same frequency, and clears it when disabled', () => {
    fc.assert(
      fc.property(input, fc.boolean(), anyDate, anyDate, (body, autoPublish, first, later) => {
        const created = nextSchedule(businessId, undefined, { ...body, is_enabled: true }, first);
        const toggled = nextSchedule(
          businessId,
          created,
          { ...body, is_enabled: true, auto_publish: autoPublish },
          later,
        );
        expect(toggled.next_run_at).toBe(created.next_run_at);
        expect(toggled.created_at).toBe(created.created_at);
        expect(
          nextSchedule(businessId, created, { ...body, is_enabled: false }, later).next_run_at,
        ).toBeNull();
      }),
    );
  });
});
