import * as z from '#lib/validation/zod.ts';

export const FREQUENCY_TYPES = ['daily', 'weekly', 'biweekly', 'monthly'] as const;
export type FrequencyType = (typeof FREQUENCY_TYPES)[number];

/** Request of PUT …/blog_posts/auto_schedule; omitted fields take the spec's defaults. */
export const BlogAutoScheduleBody = z.meta(
  z.strictObject({
    auto_publish: z._default(z.boolean(), false),
    frequency_type: z._default(z.enum(FREQUENCY_TYPES), 'weekly'),
    is_enabled: z._default(z.boolean(), true),
  }),
  { id: 'BlogAutoScheduleBody' },
);
export type BlogAutoScheduleInput = z.output<typeof BlogAutoScheduleBody>;

export const BlogAutoScheduleData = z.meta(
  z.object({
    business_id: z.uuid(),
    is_enabled: z.boolean(),
    auto_publish: z.boolean(),
    frequency_type: z.enum(FREQUENCY_TYPES),
    next_run_at: z.meta(z.nullable(z.iso.datetime()), {
      description: 'When the next post is due; null while disabled',
    }),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  }),
  { id: 'BlogAutoScheduleData' },
);
export type BlogAutoSchedule = z.output<typeof BlogAutoScheduleData>;
