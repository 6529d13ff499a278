import type { FrequencyType } from '#lib/blog/schemas.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * When the next automatic post is due, counted from `from` (whole seconds, UTC). A monthly
 * schedule moves to the same day of the next month, or its last day when that month is shorter
 * (31 January → 28/29 February).
 */
export function nextRunAt(frequency: FrequencyType, from: Date): Date {
  const start = Math.floor(from.getTime() / 1000) * 1000;
  switch (frequency) {
    case 'daily':
      return new Date(start + DAY_MS);
    case 'weekly':
      return new Date(start + 7 * DAY_MS);
    case 'biweekly':
      return new Date(start + 14 * DAY_MS);
    case 'monthly': {
      const date = new Date(start);
      const day = date.getUTCDate();
      date.setUTCDate(1);
      date.setUTCMonth(date.getUTCMonth() + 1);
      const lastDay = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
      date.setUTCDate(Math.min(day, lastDay));
      return date;
    }
  }
}
