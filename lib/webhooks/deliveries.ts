import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys, WEBHOOK_DELIVERY_PREFIX, webhookPartition } from '#lib/db/keys.ts';
import { storedItem } from '#lib/db/stored-item.ts';
import * as z from '#lib/validation/zod.ts';
import { DELIVERY_TRIGGERS, type DeliveryTrigger } from '#lib/webhooks/delivery-view.ts';

/**
 * The delivery log (docs/webhooks.md, 'The delivery log'): one item per attempt, in the
 * subscription's partition, kept DELIVERY_LOG_DAYS by TTL. What the endpoint answered is kept as
 * its status only; its body is never stored.
 */
export const DELIVERY_LOG_DAYS = 30;

// What the API shows of an attempt is in delivery-view.ts, which the route table reads without a table.
export {
  DELIVERY_TRIGGERS,
  DeliveryAttemptSchema,
  type DeliveryTrigger,
  deliveryView,
} from '#lib/webhooks/delivery-view.ts';

export interface DeliveryAttempt {
  delivery_id: string;
  webhook_id: string;
  /** The event's id: `webhook-id` of the request, the same at every attempt. */
  event_id: string;
  event_type: string;
  /** The event's position in the feed of every business (null for a ping). */
  seq: number | null;
  trigger: DeliveryTrigger;
  attempted_at: string;
  outcome: 'delivered' | 'failed';
  status_code: number | null;
  /** Why it failed when there was no answer (timeout, refused address, network), or which status. */
  error: string | null;
  duration_ms: number;
  /** When the endpoint is tried again, for a failed attempt that will be retried. */
  next_retry_at: string | null;
}

const deliveryItem = storedItem<DeliveryAttempt>('webhook delivery', () =>
  z.object({
    delivery_id: z.string(),
    webhook_id: z.string(),
    event_id: z.string(),
    event_type: z.string(),
    seq: z.nullable(z.number()),
    trigger: z.enum(DELIVERY_TRIGGERS),
    attempted_at: z.string(),
    outcome: z.enum(['delivered', 'failed']),
    status_code: z.nullable(z.number()),
    error: z.nullable(z.string()),
    duration_ms: z.number(),
    next_retry_at: z.nullable(z.string()),
  }),
);

export async function logDelivery(attempt: DeliveryAttempt): Promise<void> {
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...keys.webhookDelivery(attempt.webhook_id, attempt.delivery_id),
        ...attempt,
        expires_at_epoch: Math.floor(Date.parse(attempt.attempted_at) / 1000) + DELIVERY_LOG_DAYS * 86_400,
      },
    }),
  );
}

/** A page of a subscription's attempts, newest first, and the id to continue before. */
export async function listDeliveries(
  webhookId: string,
  page: { limit: number; before?: string | undefined },
  now: Date = new Date(),
): Promise<{ deliveries: DeliveryAttempt[]; next: string | null }> {
  const result = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: page.before
        ? 'pk = :pk AND sk BETWEEN :first AND :before'
        : 'pk = :pk AND begins_with(sk, :first)',
      ExpressionAttributeValues: {
        ':pk': webhookPartition(webhookId),
        ':first': WEBHOOK_DELIVERY_PREFIX,
        // BETWEEN is inclusive: the id just below `before` ends the range.
        ...(page.before ? { ':before': `${WEBHOOK_DELIVERY_PREFIX}${page.before}` } : {}),
      },
      ScanIndexForward: false,
      ConsistentRead: true,
      Limit: page.limit + 1,
    }),
  );
  const nowEpoch = Math.floor(now.getTime() / 1000);
  const all = (result.Items ?? [])
    .filter((item) => Number(item.expires_at_epoch) > nowEpoch)
    .map((item) => deliveryItem.fromItem(item))
    .filter((attempt) => attempt.delivery_id !== page.before);
  const deliveries = all.slice(0, page.limit);
  const more = all.length > page.limit || (result.LastEvaluatedKey !== undefined && deliveries.length > 0);
  return { deliveries, next: more ? (deliveries.at(-1)?.delivery_id ?? null) : null };
}

/** One attempt of a subscription, or undefined. */
export async function readDelivery(
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryAttempt | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: tableName,
      Key: keys.webhookDelivery(webhookId, deliveryId),
      ConsistentRead: true,
    }),
  );
  return Item ? deliveryItem.fromItem(Item) : undefined;
}
