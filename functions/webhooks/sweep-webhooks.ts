import type { Context, ScheduledEvent } from 'aws-lambda';
import { sweep } from '#lib/webhooks/dispatch.ts';

/**
 * The webhook sweep (docs/webhooks.md, 'Retries'): every minute, runs the subscriptions whose
 * retry, replay or continuation is due (lib/webhooks/dispatch.ts). A schedule rule invokes it.
 */
export async function handler(_event: ScheduledEvent, context: Context): Promise<{ runs: number }> {
  const outcomes = await sweep({
    deadline: Date.now() + context.getRemainingTimeInMillis(),
    trigger: 'retry',
  });
  return { runs: outcomes.size };
}
