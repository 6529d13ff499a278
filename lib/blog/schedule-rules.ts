import type { BlogAutoSchedule, BlogAutoScheduleInput, FrequencyType } from '#lib/blog/schemas.ts';

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

/** The schedule after applying `input` to `current`; returns `current` itself when nothing changes. */
export function nextSchedule(
  businessId: string,
  current: BlogAutoSchedule | undefined,
  input: BlogAutoScheduleInput,
  now: Date,
): BlogAutoSchedule {
  if (
    current &&
    current.is_enabled === input.is_enabled &&
    current.auto_publish === input.auto_publish &&
    current.frequency_type === input.frequency_type
  ) {
    return current;
  }
  const stamp = now.toISOString();
  const keepsCadence = current?.is_enabled && current.frequency_type === input.frequency_type;
  return {
    business_id: businessId,
    is_enabled: input.is_enabled,
    auto_publish: input.auto_publish,
    frequency_type: input.frequency_type,
    next_run_at: !input.is_enabled
      ? null
      : keepsCadence && current.next_run_at
        ? current.next_run_at
        : nextRunAt(input.frequency_type, now).toISOString(),
    created_at: current?.created_at ?? stamp,
    updated_at: stamp,
  };
}
