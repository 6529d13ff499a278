import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { logger } from '#lib/observability/logger.ts';
import { SIGNAL_FIELDS } from '#lib/observability/signal-fields.ts';
import {
  type DisabledReason,
  subscriptionItem,
  type WebhookSubscription,
} from '#lib/webhooks/subscription.ts';

/**
 * A delivery run's writes to its subscription (lib/webhooks/run.ts): taking and giving back the
 * lease, moving the position, ending a failure streak, disabling. Every write but the lease's
 * taking requires the lease to be the run's (`lease_owner`), so a run that lost it (it outlived
 * its lease) changes nothing.
 */

/** A lease outlives the run's deadline by this much, in case the run dies without releasing it. */
const LEASE_MARGIN_MS = 30_000;

export async function disable(
  subscription: WebhookSubscription,
  owner: string,
  reason: DisabledReason,
  now: Date,
  lastError: string | null = null,
): Promise<void> {
  logger.warn('webhook disabled', {
    [SIGNAL_FIELDS.webhookDelivery]: 'disabled',
    webhook_id: subscription.webhook_id,
    reason,
  });
  await dynamo
    .send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.webhook(subscription.webhook_id),
        UpdateExpression: `SET enabled = :false, disabled_reason = :reason, disabled_at = :now, updated_at = :now${
          lastError ? ', last_error = :error' : ''
        } REMOVE lease_owner, lease_until, next_attempt_at`,
        ConditionExpression: 'lease_owner = :owner',
        ExpressionAttributeValues: {
          ':false': false,
          ':reason': reason,
          ':now': now.toISOString(),
          ':owner': owner,
          ...(lastError ? { ':error': lastError } : {}),
        },
      }),
    )
    .catch(ignoreConditionFailure);
}

/** The lease, if the subscription is enabled, due and free (or its lease expired). */
export async function takeLease(
  webhookId: string,
  owner: string,
  deadline: number,
  now: Date,
): Promise<WebhookSubscription | undefined> {
  try {
    const result = await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.webhook(webhookId),
        UpdateExpression: 'SET lease_owner = :owner, lease_until = :until',
        ConditionExpression:
          'attribute_exists(pk) AND enabled = :true' +
          ' AND (attribute_not_exists(lease_until) OR lease_until < :now)' +
          ' AND (attribute_not_exists(next_attempt_at) OR next_attempt_at <= :now)',
        ExpressionAttributeValues: {
          ':owner': owner,
          // On the run's clock (a test's may be days ahead), as long as the run may last and a margin.
          ':until': new Date(
            now.getTime() + Math.max(0, deadline - Date.now()) + LEASE_MARGIN_MS,
          ).toISOString(),
          ':true': true,
          ':now': now.toISOString(),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return subscriptionItem.fromItem(result.Attributes ?? {});
  } catch (error) {
    ignoreConditionFailure(error);
    return undefined;
  }
}

/**
 * Give the lease back. `ifWake`: only if nothing woke the subscription since (false otherwise, the
 * lease kept). `dueNow`: leave it due, for the next sweep to go on.
 */
export async function release(
  subscription: WebhookSubscription,
  owner: string,
  options: { ifWake?: number; dueNow?: boolean },
): Promise<boolean> {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.webhook(subscription.webhook_id),
        UpdateExpression: options.dueNow
          ? 'SET next_attempt_at = :now REMOVE lease_owner, lease_until'
          : 'REMOVE lease_owner, lease_until, next_attempt_at',
        ConditionExpression:
          options.ifWake === undefined ? 'lease_owner = :owner' : 'lease_owner = :owner AND wake = :wake',
        ExpressionAttributeValues: {
          ':owner': owner,
          ...(options.dueNow ? { ':now': new Date().toISOString() } : {}),
          ...(options.ifWake === undefined ? {} : { ':wake': options.ifWake }),
        },
      }),
    );
    return true;
  } catch (error) {
    ignoreConditionFailure(error);
    return false;
  }
}

export async function reread(webhookId: string): Promise<WebhookSubscription | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: keys.webhook(webhookId), ConsistentRead: true }),
  );
  return Item ? subscriptionItem.fromItem(Item) : undefined;
}

/** Move the position past a feed item once the attempts' log entries are written; the lease must still be ours. */
export async function advance(
  subscription: WebhookSubscription,
  owner: string,
  seq: number,
  logged: Promise<void>[] = [],
): Promise<WebhookSubscription> {
  await Promise.all(logged.splice(0));
  if (seq === subscription.cursor_seq) return subscription;
  await dynamo.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.webhook(subscription.webhook_id),
      UpdateExpression: 'SET cursor_seq = :seq',
      ConditionExpression: 'lease_owner = :owner',
      ExpressionAttributeValues: { ':seq': seq, ':owner': owner },
    }),
  );
  return { ...subscription, cursor_seq: seq };
}

/** A delivery went through: the failure streak ends. */
export async function recovered(
  subscription: WebhookSubscription,
  owner: string,
): Promise<WebhookSubscription> {
  await dynamo.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.webhook(subscription.webhook_id),
      UpdateExpression: 'SET failures = :zero REMOVE failing_since, last_error',
      ConditionExpression: 'lease_owner = :owner',
      ExpressionAttributeValues: { ':zero': 0, ':owner': owner },
    }),
  );
  const { failing_since: _since, last_error: _error, ...rest } = subscription;
  return { ...rest, failures: 0 };
}

export function ignoreConditionFailure(error: unknown): void {
  if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
}
