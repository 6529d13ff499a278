import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { v7 as uuidv7 } from 'uuid';
import type { AgentPrincipal } from '#lib/auth/principal.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys, WEBHOOKS, webhookKeyPrefix } from '#lib/db/keys.ts';
import { queryAll } from '#lib/db/query-all.ts';
import type { EventType } from '#lib/events/change-event.ts';
import { ConflictError, NotFoundError } from '#lib/http/errors.ts';
import { checkEndpointUrl } from '#lib/webhooks/endpoint.ts';
import { newSigningSecret } from '#lib/webhooks/secrets.ts';
import {
  MAX_WEBHOOKS_PER_KEY,
  subscriptionItem,
  type WebhookSubscription,
} from '#lib/webhooks/subscription.ts';

/**
 * Webhook subscriptions as their owner manages them (docs/webhooks.md, 'Subscriptions'). Every
 * operation names the agent key it acts for: a subscription of another key is a 404, never a 403,
 * so ids say nothing about other keys. Delivery state is written by lib/webhooks/run.ts.
 */

/** How long a rotated-out secret still signs beside the new one. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface NewWebhook {
  url: string;
  types?: EventType[] | undefined;
  description?: string | undefined;
}

export interface WebhookChange {
  url?: string | undefined;
  types?: EventType[] | null | undefined;
  description?: string | null | undefined;
  enabled?: boolean | undefined;
}

/** The last feed position given out: a new subscription gets the events after it. */
export async function lastFeedPosition(): Promise<number> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: keys.eventCounter(), ConsistentRead: true }),
  );
  return typeof Item?.last_seq === 'number' ? Item.last_seq : 0;
}

/** Make a subscription; its signing secret is in the answer and nowhere else readable. */
export async function createWebhook(
  agent: AgentPrincipal,
  input: NewWebhook,
  now: Date = new Date(),
): Promise<{ subscription: WebhookSubscription; secret: string }> {
  await checkEndpointUrl(input.url);
  const secret = newSigningSecret();
  const at = now.toISOString();
  const subscription: WebhookSubscription = {
    webhook_id: uuidv7(),
    key_id: agent.keyId,
    businesses: agent.businesses,
    url: input.url,
    types: input.types ?? null,
    description: input.description ?? null,
    enabled: true,
    secrets: [{ secret, created_at: at }],
    created_at: at,
    updated_at: at,
    cursor_seq: await lastFeedPosition(),
    failures: 0,
    wake: 0,
  };
  try {
    await dynamo.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName,
              Key: keys.webhookCount(agent.keyId),
              UpdateExpression: 'ADD webhooks :one',
              ConditionExpression: 'attribute_not_exists(webhooks) OR webhooks < :max',
              ExpressionAttributeValues: { ':one': 1, ':max': MAX_WEBHOOKS_PER_KEY },
            },
          },
          {
            Put: {
              TableName: tableName,
              Item: {
                ...keys.webhook(subscription.webhook_id),
                ...keys.webhookIndex(agent.keyId, subscription.webhook_id),
                ...subscription,
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      }),
    );
  } catch (error) {
    if (
      error instanceof TransactionCanceledException &&
      error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed'
    ) {
      throw new ConflictError(
        `This agent key already has ${MAX_WEBHOOKS_PER_KEY} webhooks, the most it may have: delete one first`,
      );
    }
    throw error;
  }
  return { subscription, secret };
}

/** One subscription of the key; 404 when there is none or it is another key's. */
export async function getWebhook(agent: AgentPrincipal, webhookId: string): Promise<WebhookSubscription> {
  const subscription = await readSubscription(webhookId);
  if (!subscription || subscription.key_id !== agent.keyId) throw notFound(webhookId);
  return subscription;
}

/** A subscription whoever owns it (delivery), or undefined. */
export async function readSubscription(webhookId: string): Promise<WebhookSubscription | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: tableName,
      Key: keys.webhook(webhookId.toLowerCase()),
      ConsistentRead: true,
    }),
  );
  return Item ? subscriptionItem.fromItem(Item) : undefined;
}

/** The key's subscriptions, oldest first. */
export const listWebhooks = (agent: AgentPrincipal): Promise<WebhookSubscription[]> =>
  listWebhooksOfKey(agent.keyId);

async function listWebhooksOfKey(keyId: string): Promise<WebhookSubscription[]> {
  const items = await queryAll({
    TableName: tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
    ExpressionAttributeValues: { ':pk': WEBHOOKS, ':prefix': webhookKeyPrefix(keyId) },
  });
  return items.map((item) => subscriptionItem.fromItem(item));
}

/** Every subscription of every key (what the delivery side matches events against). */
export async function listAllSubscriptions(): Promise<WebhookSubscription[]> {
  const items = await queryAll({
    TableName: tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': WEBHOOKS },
  });
  return items.map((item) => subscriptionItem.fromItem(item));
}

/**
 * Change what the owner may change. Pausing (`enabled: false`) stops deliveries, the position
 * kept; resuming clears any failure streak and delivers what it missed at once, oldest first.
 */
export async function updateWebhook(
  agent: AgentPrincipal,
  webhookId: string,
  change: WebhookChange,
  now: Date = new Date(),
): Promise<WebhookSubscription> {
  const current = await getWebhook(agent, webhookId);
  if (change.url !== undefined && change.url !== current.url) await checkEndpointUrl(change.url);
  const set: Record<string, unknown> = { updated_at: now.toISOString() };
  const remove: string[] = [];
  if (change.url !== undefined) set.url = change.url;
  if (change.types !== undefined) set.types = change.types;
  if (change.description !== undefined) set.description = change.description;
  if (change.enabled === false && current.enabled) {
    Object.assign(set, { enabled: false, disabled_reason: 'paused', disabled_at: now.toISOString() });
  } else if (change.enabled === true && !current.enabled) {
    Object.assign(set, { enabled: true, failures: 0, next_attempt_at: now.toISOString() });
    remove.push('disabled_reason', 'disabled_at', 'failing_since', 'last_error');
  }
  const names = Object.keys(set);
  const result = await dynamo
    .send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.webhook(current.webhook_id),
        UpdateExpression: `SET ${names.map((name) => `#${name} = :${name}`).join(', ')}${
          remove.length ? ` REMOVE ${remove.map((name) => `#${name}`).join(', ')}` : ''
        }`,
        ConditionExpression: 'key_id = :key',
        ExpressionAttributeNames: Object.fromEntries([...names, ...remove].map((name) => [`#${name}`, name])),
        ExpressionAttributeValues: {
          ...Object.fromEntries(names.map((name) => [`:${name}`, set[name]])),
          ':key': agent.keyId,
        },
        ReturnValues: 'ALL_NEW',
      }),
    )
    .catch((error: unknown) => {
      if ((error as Error).name === 'ConditionalCheckFailedException') throw notFound(webhookId);
      throw error;
    });
  return subscriptionItem.fromItem(result.Attributes ?? {});
}

/** Delete a subscription: no delivery starts after this (its log expires with its TTL). */
export async function deleteWebhook(agent: AgentPrincipal, webhookId: string): Promise<void> {
  try {
    await dynamo.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              TableName: tableName,
              Key: keys.webhook(webhookId.toLowerCase()),
              ConditionExpression: 'key_id = :key',
              ExpressionAttributeValues: { ':key': agent.keyId },
            },
          },
          {
            Update: {
              TableName: tableName,
              Key: keys.webhookCount(agent.keyId),
              UpdateExpression: 'ADD webhooks :minus',
              ExpressionAttributeValues: { ':minus': -1 },
            },
          },
        ],
      }),
    );
  } catch (error) {
    if (
      error instanceof TransactionCanceledException &&
      error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed'
    ) {
      throw notFound(webhookId);
    }
    throw error;
  }
}

/**
 * A new signing secret, shown once. The one it replaces still signs for SECRET_OVERLAP_MS, so a
 * receiver can switch without refusing a delivery; secrets already expired are dropped.
 */
export async function rotateWebhookSecret(
  agent: AgentPrincipal,
  webhookId: string,
  now: Date = new Date(),
): Promise<{ subscription: WebhookSubscription; secret: string }> {
  const current = await getWebhook(agent, webhookId);
  const secret = newSigningSecret();
  const overlapEnds = new Date(now.getTime() + SECRET_OVERLAP_MS).toISOString();
  const secrets = [
    { secret, created_at: now.toISOString() },
    ...current.secrets
      .filter((entry) => entry.expires_at === undefined || Date.parse(entry.expires_at) > now.getTime())
      .map((entry) => ({ ...entry, expires_at: entry.expires_at ?? overlapEnds })),
  ];
  const result = await dynamo.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.webhook(current.webhook_id),
      UpdateExpression: 'SET secrets = :secrets, updated_at = :now',
      ConditionExpression: 'key_id = :key',
      ExpressionAttributeValues: { ':secrets': secrets, ':now': now.toISOString(), ':key': agent.keyId },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return { subscription: subscriptionItem.fromItem(result.Attributes ?? {}), secret };
}

/** Stop every subscription of a revoked key (the delivery side checks the key as well). */
export async function disableWebhooksOfKey(keyId: string, now: Date = new Date()): Promise<number> {
  const owned = await listWebhooksOfKey(keyId);
  for (const subscription of owned.filter((entry) => entry.enabled)) {
    await dynamo
      .send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.webhook(subscription.webhook_id),
          UpdateExpression:
            'SET enabled = :false, disabled_reason = :reason, disabled_at = :now, updated_at = :now',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':false': false, ':reason': 'key_revoked', ':now': now.toISOString() },
        }),
      )
      .catch((error: unknown) => {
        if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      });
  }
  return owned.length;
}

const notFound = (webhookId: string) => new NotFoundError(`No webhook with id ${webhookId}`);
