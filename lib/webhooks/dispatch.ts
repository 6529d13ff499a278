import { logger } from '#lib/observability/logger.ts';
import { type RunOptions, type RunOutcome, runSubscription, wakeAndRun } from '#lib/webhooks/run.ts';
import { listAllSubscriptions } from '#lib/webhooks/store.ts';
import { wants } from '#lib/webhooks/subscription.ts';

/**
 * What starts delivery runs (docs/webhooks.md, 'How deliveries run'): new events from the bus
 * (through the queue, functions/webhooks/deliver-webhooks.ts) wake the subscriptions that want
 * them; the sweep (every minute, functions/webhooks/sweep-webhooks.ts) runs those whose retry or
 * continuation is due. Runs of different subscriptions go side by side, a few at a time.
 */
const PARALLEL_RUNS = 8;

/** Wake and run every enabled subscription that wants one of these events. */
export async function deliverEvents(
  events: readonly { business_id: string; type: string }[],
  options: RunOptions,
): Promise<Map<string, RunOutcome>> {
  const subscriptions = (await listAllSubscriptions()).filter(
    (subscription) => subscription.enabled && events.some((event) => wants(subscription, event)),
  );
  return inParallel(
    subscriptions.map((subscription) => subscription.webhook_id),
    (webhookId) => wakeAndRun(webhookId, options),
  );
}

/** Run every enabled subscription whose next attempt is due and whose lease is free. */
export async function sweep(options: RunOptions): Promise<Map<string, RunOutcome>> {
  const now = (options.now ?? (() => new Date()))().toISOString();
  const due = (await listAllSubscriptions()).filter(
    (subscription) =>
      subscription.enabled &&
      subscription.next_attempt_at !== undefined &&
      subscription.next_attempt_at <= now &&
      (subscription.lease_until === undefined || subscription.lease_until < now),
  );
  return inParallel(
    due.map((subscription) => subscription.webhook_id),
    (webhookId) => runSubscription(webhookId, options),
  );
}

async function inParallel(
  ids: string[],
  run: (id: string) => Promise<RunOutcome>,
): Promise<Map<string, RunOutcome>> {
  const outcomes = new Map<string, RunOutcome>();
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++] as string;
      outcomes.set(id, await run(id));
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_RUNS, ids.length) }, worker));
  if (outcomes.size > 0) logger.info('webhook runs', { outcomes: Object.fromEntries(outcomes) });
  return outcomes;
}
