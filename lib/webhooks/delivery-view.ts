import { once } from '#lib/validation/lazy.ts';
import * as z from '#lib/validation/zod.ts';
import type { DeliveryAttempt } from '#lib/webhooks/deliveries.ts';

/**
 * What the API shows of a delivery attempt (lib/webhooks/deliveries.ts keeps them). Apart from the
 * log, because the route table (lib/routes/webhooks.ts) reads the schema and must load without
 * the table's client.
 */

/** Why an attempt was made: a new event, a retry of a failing endpoint, a replay, a test ping, a manual retry. */
export const DELIVERY_TRIGGERS = ['event', 'retry', 'replay', 'test', 'manual'] as const;
export type DeliveryTrigger = (typeof DELIVERY_TRIGGERS)[number];

export const DeliveryAttemptSchema = once(() =>
  z.object({
    id: z.uuid(),
    event_id: z.string(),
    event_type: z.string(),
    trigger: z.enum(DELIVERY_TRIGGERS),
    attempted_at: z.iso.datetime(),
    outcome: z.enum(['delivered', 'failed']),
    status_code: z.nullable(z.number()),
    error: z.nullable(z.string()),
    duration_ms: z.number(),
    next_retry_at: z.nullable(z.iso.datetime()),
  }),
);

export function deliveryView(attempt: DeliveryAttempt) {
  return {
    id: attempt.delivery_id,
    event_id: attempt.event_id,
    event_type: attempt.event_type,
    trigger: attempt.trigger,
    attempted_at: attempt.attempted_at,
    outcome: attempt.outcome,
    status_code: attempt.status_code,
    error: attempt.error,
    duration_ms: attempt.duration_ms,
    next_retry_at: attempt.next_retry_at,
  };
}
