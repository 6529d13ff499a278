import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { v7 as uuidv7 } from 'uuid';
import { findAgentKeyItem } from '#lib/auth/agent-keys.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { type FeedItem, readFeedItems } from '#lib/events/feed-items.ts';
import { logger } from '#lib/observability/logger.ts';
import { SIGNAL_FIELDS } from '#lib/observability/signal-fields.ts';
import { DISABLE_AFTER_MS, nextAttemptAt } from '#lib/webhooks/backoff.ts';
import { type DeliveryTrigger, logDelivery } from '#lib/webhooks/deliveries.ts';
import {
  advance,
  disable,
  ignoreConditionFailure,
  recovered,
  release,
  reread,
  takeLease,
} from '#lib/webhooks/lease.ts';
import { type PostResult, postMessage, type WebhookMessage } from '#lib/webhooks/post.ts';
import { nextReplay, replayDone, replayMoved } from '#lib/webhooks/replays.ts';
import {
  type DisabledReason,
  signingSecrets,
  type WebhookSubscription,
  wants,
} from '#lib/webhooks/subscription.ts';

/**
 * One delivery run of one subscription (docs/webhooks.md, 'How deliveries run'): post its events
 * after its position in the feed of every business, oldest first, one at a time, moving the
 * position once a page past the last one delivered; stop at the first failure and say when to try
 * again. Its writes to the subscription (lease, position, streak) are in lib/webhooks/lease.ts.
 *
 * - Only one run per subscription posts at a time: a run first takes the subscription's lease (a
 *   conditional write), which also requires it enabled and due (no retry pending in the future).
 * - Nothing is missed: whatever wakes a run (an event on the queue) first bumps `wake`; a run that
 *   reached the end of the feed releases the lease only if `wake` is what it was when it read the
 *   feed, and reads again otherwise. An event that woke nobody because a run held the lease is
 *   seen by that run.
 * - Order: events are posted in feed order and a failing event holds the ones after it back, so an
 *   endpoint that was down gets what it missed oldest first.
 * - A run stops before its deadline (a function's remaining time) and leaves the subscription due,
 *   so the next sweep (every minute) goes on from there.
 * - Replays (lib/webhooks/replays.ts) run after the live events, through the same lease.
 */

/** A page of the feed read at a time. */
const FEED_PAGE = 50;
/** How long before its deadline a run stops starting posts: one post's timeout and some. */
const STOP_BEFORE_DEADLINE_MS = 12_000;

export interface RunOptions {
  /** Epoch ms by which the run must have stopped (its function's remaining time). */
  deadline: number;
  now?: () => Date;
  /** For tests: the random factor of the backoff's jitter. */
  random?: () => number;
  /** Why the run's first attempt happens: `retry` when it retries a failing endpoint. */
  trigger?: DeliveryTrigger;
}

export type RunOutcome =
  | 'skipped' // not enabled, not due, deleted, or another run holds the lease
  | 'caught_up'
  | 'failed' // stopped at a failure; a retry is scheduled
  | 'disabled'
  | 'more'; // stopped for its deadline; due again at once

/** Tell a subscription there is something new for it, then run it (unless a run is already on). */
export async function wakeAndRun(webhookId: string, options: RunOptions): Promise<RunOutcome> {
  await dynamo
    .send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.webhook(webhookId),
        UpdateExpression: 'ADD wake :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    )
    .catch(ignoreConditionFailure);
  return runSubscription(webhookId, options);
}

export async function runSubscription(webhookId: string, options: RunOptions): Promise<RunOutcome> {
  const now = options.now ?? (() => new Date());
  const owner = uuidv7();
  let subscription = await takeLease(webhookId, owner, options.deadline, now());
  if (!subscription) return 'skipped';
  if (!(await keyStillValid(subscription.key_id))) {
    await disable(subscription, owner, 'key_revoked', now());
    return 'disabled';
  }
  let trigger: DeliveryTrigger = subscription.failures > 0 ? 'retry' : (options.trigger ?? 'event');
  for (;;) {
    if (Date.now() > options.deadline - STOP_BEFORE_DEADLINE_MS) {
      await release(subscription, owner, { dueNow: true });
      return 'more';
    }
    const { items } = await readFeedItems(null, subscription.cursor_seq, FEED_PAGE);
    if (items.length === 0) {
      const replayed = await runReplays(subscription, owner, options, now);
      if (replayed !== 'caught_up') return replayed;
      if (await release(subscription, owner, { ifWake: subscription.wake })) return 'caught_up';
      // An event came while this run read the feed: read again.
      const fresh = await reread(webhookId);
      if (!fresh) return 'skipped';
      subscription = { ...fresh, lease_owner: owner };
      continue;
    }
    // The page's posts one after another; their log entries written meanwhile, and the position
    // moved once, past the last one delivered (a run that dies before that posts them again).
    const logged: Promise<void>[] = [];
    let position = subscription.cursor_seq;
    let outcome: RunOutcome | undefined;
    for (const item of items) {
      if (Date.now() > options.deadline - STOP_BEFORE_DEADLINE_MS) break;
      if (wants(subscription, item)) {
        const result = await post(subscription, messageOf(item), now());
        if (!result.ok) {
          subscription = await advance(subscription, owner, position, logged);
          outcome = await failed(subscription, owner, { item, trigger, result }, options, now());
          break;
        }
        logged.push(logAttempt(subscription, item, trigger, result, now()));
        trigger = options.trigger ?? 'event';
        if (subscription.failures > 0) subscription = await recovered(subscription, owner);
      }
      position = item.seq;
    }
    if (outcome) return outcome;
    subscription = await advance(subscription, owner, position, logged);
  }
}

/** What a feed item is posted as. */
export const messageOf = (item: FeedItem): WebhookMessage => ({
  id: item.event.id,
  type: item.event.type,
  timestamp: item.event.occurred_at,
  data: item.event,
});

function post(subscription: WebhookSubscription, message: WebhookMessage, now: Date): Promise<PostResult> {
  return postMessage(subscription.url, message, signingSecrets(subscription, now));
}

async function logAttempt(
  subscription: WebhookSubscription,
  item: FeedItem,
  trigger: DeliveryTrigger,
  result: PostResult,
  now: Date,
  nextRetry: Date | null = null,
): Promise<void> {
  logger.info('webhook delivery', {
    [SIGNAL_FIELDS.webhookDelivery]: result.ok ? 'delivered' : 'failed',
    webhook_id: subscription.webhook_id,
    event_id: item.event.id,
    status_code: result.status,
    duration_ms: result.durationMs,
  });
  await logDelivery({
    delivery_id: uuidv7(),
    webhook_id: subscription.webhook_id,
    event_id: item.event.id,
    event_type: item.event.type,
    seq: item.seq,
    trigger,
    attempted_at: now.toISOString(),
    outcome: result.ok ? 'delivered' : 'failed',
    status_code: result.status,
    error: result.error,
    duration_ms: result.durationMs,
    next_retry_at: nextRetry?.toISOString() ?? null,
  });
}

/**
 * After a failed attempt, logged with what follows it: 410 disables at once, and so does a failure
 * DISABLE_AFTER_MS into a streak; otherwise the endpoint is tried again on the backoff schedule.
 */
async function failed(
  subscription: WebhookSubscription,
  owner: string,
  attempt: { item: FeedItem; trigger: DeliveryTrigger; result: PostResult },
  options: RunOptions,
  now: Date,
): Promise<RunOutcome> {
  const { result } = attempt;
  const failingSince = subscription.failing_since ?? now.toISOString();
  const reason: DisabledReason | undefined =
    result.status === 410
      ? 'gone'
      : now.getTime() - Date.parse(failingSince) >= DISABLE_AFTER_MS
        ? 'failing'
        : undefined;
  const failures = subscription.failures + 1;
  if (reason) {
    await logAttempt(subscription, attempt.item, attempt.trigger, result, now);
    await disable(subscription, owner, reason, now, result.error);
    return 'disabled';
  }
  const retryAt = nextAttemptAt(failures, now, options.random);
  await logAttempt(subscription, attempt.item, attempt.trigger, result, now, retryAt);
  await dynamo
    .send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.webhook(subscription.webhook_id),
        UpdateExpression:
          'SET failures = :failures, failing_since = :since, next_attempt_at = :retry, last_error = :error REMOVE lease_owner, lease_until',
        ConditionExpression: 'lease_owner = :owner',
        ExpressionAttributeValues: {
          ':failures': failures,
          ':since': failingSince,
          ':retry': retryAt.toISOString(),
          ':error': result.error ?? 'failed',
          ':owner': owner,
        },
      }),
    )
    .catch(ignoreConditionFailure);
  return 'failed';
}

/** The replays the subscription has, each from its position; failures as for live events. */
async function runReplays(
  subscription: WebhookSubscription,
  owner: string,
  options: RunOptions,
  now: () => Date,
): Promise<RunOutcome> {
  for (
    let replay = await nextReplay(subscription.webhook_id);
    replay;
    replay = await nextReplay(subscription.webhook_id)
  ) {
    for (;;) {
      if (Date.now() > options.deadline - STOP_BEFORE_DEADLINE_MS) {
        await release(subscription, owner, { dueNow: true });
        return 'more';
      }
      const { items, reachedEnd } = await readFeedItems(null, replay.position_seq, FEED_PAGE);
      const { from, to } = replay;
      const inRange = (item: FeedItem) => item.event.occurred_at >= from && item.event.occurred_at <= to;
      let position = replay.position_seq;
      let finished = reachedEnd && items.length === 0;
      for (const item of items) {
        if (item.seq > replay.last_seq) {
          finished = true;
          break;
        }
        if (inRange(item) && wants(subscription, item)) {
          const result = await post(subscription, messageOf(item), now());
          if (!result.ok) {
            await replayMoved(replay, position);
            return await failed(subscription, owner, { item, trigger: 'replay', result }, options, now());
          }
          await logAttempt(subscription, item, 'replay', result, now());
        }
        position = item.seq;
      }
      if (finished || (reachedEnd && position === replay.position_seq)) {
        await replayDone(replay);
        break;
      }
      replay = await replayMoved(replay, position);
    }
  }
  return 'caught_up';
}

/** Is the subscription's agent key still there and not revoked? */
async function keyStillValid(keyId: string): Promise<boolean> {
  const item = await findAgentKeyItem(keyId);
  return item !== undefined && item.revoked_at === undefined;
}
