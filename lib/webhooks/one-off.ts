import { v7 as uuidv7 } from 'uuid';
import { readFeedItemAt } from '#lib/events/feed-items.ts';
import { NotFoundError } from '#lib/http/errors.ts';
import {
  type DeliveryAttempt,
  type DeliveryTrigger,
  logDelivery,
  readDelivery,
} from '#lib/webhooks/deliveries.ts';
import { postMessage, type WebhookMessage } from '#lib/webhooks/post.ts';
import { messageOf } from '#lib/webhooks/run.ts';
import { signingSecrets, type WebhookSubscription } from '#lib/webhooks/subscription.ts';

/**
 * Deliveries an owner asks for by hand, made at once by the API function and answered with their
 * attempt (docs/webhooks.md, 'Replay and retry'): a `ping` (POST …/test) and a retry of one logged
 * delivery (the same event id). Neither moves the subscription's position nor its failure streak,
 * and both go even while it is paused or failing: they are how its owner checks the endpoint.
 */

export async function sendPing(
  subscription: WebhookSubscription,
  now: Date = new Date(),
): Promise<DeliveryAttempt> {
  return attempt(subscription, {
    message: ping(uuidv7(), subscription, now),
    seq: null,
    trigger: 'test',
    now,
  });
}

/** A ping: what `test` posts, and a retry of one posts again under its id. */
const ping = (id: string, subscription: WebhookSubscription, now: Date): WebhookMessage => ({
  id,
  type: 'ping',
  timestamp: now.toISOString(),
  data: { webhook_id: subscription.webhook_id },
});

/** Post a logged delivery's event again; 404 when the attempt is unknown or its event left the feed. */
export async function redeliver(
  subscription: WebhookSubscription,
  deliveryId: string,
  now: Date = new Date(),
): Promise<DeliveryAttempt> {
  const logged = await readDelivery(subscription.webhook_id, deliveryId.toLowerCase());
  if (!logged) throw new NotFoundError(`No delivery with id ${deliveryId}`);
  let message: WebhookMessage;
  if (logged.seq === null) {
    message = ping(logged.event_id, subscription, now);
  } else {
    const item = await readFeedItemAt(logged.seq);
    if (!item || item.event.id !== logged.event_id) {
      throw new NotFoundError(`The event ${logged.event_id} is no longer kept (the feed keeps 30 days)`);
    }
    message = messageOf(item);
  }
  return attempt(subscription, { message, seq: logged.seq, trigger: 'manual', now });
}

async function attempt(
  subscription: WebhookSubscription,
  input: { message: WebhookMessage; seq: number | null; trigger: DeliveryTrigger; now: Date },
): Promise<DeliveryAttempt> {
  const result = await postMessage(subscription.url, input.message, signingSecrets(subscription, input.now));
  const logged: DeliveryAttempt = {
    delivery_id: uuidv7(),
    webhook_id: subscription.webhook_id,
    event_id: input.message.id,
    event_type: input.message.type,
    seq: input.seq,
    trigger: input.trigger,
    attempted_at: input.now.toISOString(),
    outcome: result.ok ? 'delivered' : 'failed',
    status_code: result.status,
    error: result.error,
    duration_ms: result.durationMs,
    next_retry_at: null,
  };
  await logDelivery(logged);
  return logged;
}
