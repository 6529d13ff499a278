import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { v7 as uuidv7 } from 'uuid';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys, WEBHOOK_REPLAY_PREFIX, webhookPartition } from '#lib/db/keys.ts';
import { storedItem } from '#lib/db/stored-item.ts';
import * as z from '#lib/validation/zod.ts';
import { lastFeedPosition } from '#lib/webhooks/store.ts';

/**
 * Replays (docs/webhooks.md, 'Replay and retry'): every event of a time range delivered again,
 * read from the feed (30 days). A replay is an item in the subscription's partition with its
 * position in the feed; the subscription's delivery run (lib/webhooks/run.ts) works through it
 * after the live events, and deletes it when it has passed the last position the feed had when
 * the replay was asked for.
 */
export interface Replay {
  webhook_id: string;
  replay_id: string;
  /** The range, by the events' `occurred_at`, both ends included. */
  from: string;
  to: string;
  position_seq: number;
  last_seq: number;
  requested_at: string;
}

const replayItem = storedItem<Replay>('webhook replay', () =>
  z.object({
    webhook_id: z.string(),
    replay_id: z.string(),
    from: z.string(),
    to: z.string(),
    position_seq: z.number(),
    last_seq: z.number(),
    requested_at: z.string(),
  }),
);

/** Record a replay and make the subscription due, so that the next sweep starts it. */
export async function requestReplay(
  webhookId: string,
  range: { from: string; to: string },
  now: Date = new Date(),
): Promise<Replay> {
  const replay: Replay = {
    webhook_id: webhookId,
    replay_id: uuidv7(),
    from: range.from,
    to: range.to,
    position_seq: 0,
    last_seq: await lastFeedPosition(),
    requested_at: now.toISOString(),
  };
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...keys.webhookReplay(webhookId, replay.replay_id), ...replay },
    }),
  );
  await dynamo.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.webhook(webhookId),
      UpdateExpression: 'SET next_attempt_at = if_not_exists(next_attempt_at, :now)',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':now': now.toISOString() },
    }),
  );
  return replay;
}

/** The oldest replay still to run, if any. */
export async function nextReplay(webhookId: string): Promise<Replay | undefined> {
  const result = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': webhookPartition(webhookId), ':prefix': WEBHOOK_REPLAY_PREFIX },
      ConsistentRead: true,
      Limit: 1,
    }),
  );
  const item = result.Items?.[0];
  return item ? replayItem.fromItem(item) : undefined;
}

export async function replayMoved(replay: Replay, position: number): Promise<Replay> {
  await dynamo.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.webhookReplay(replay.webhook_id, replay.replay_id),
      UpdateExpression: 'SET position_seq = :position',
      ExpressionAttributeValues: { ':position': position },
    }),
  );
  return { ...replay, position_seq: position };
}

export async function replayDone(replay: Replay): Promise<void> {
  await dynamo.send(
    new DeleteCommand({ TableName: tableName, Key: keys.webhookReplay(replay.webhook_id, replay.replay_id) }),
  );
}
