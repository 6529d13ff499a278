import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { RateLimitedError } from '#lib/http/errors.ts';

/**
 * A counter per key and window in the table: one conditional UpdateItem per counted request,
 * which adds one while the count is below the limit and fails otherwise. Each window's item
 * expires (TTL) one window after it ends. The limits that use it are listed in docs/security.md.
 */
export interface FixedWindowLimit {
  /** What is counted, part of the key: `registration`, `token-source`, … */
  name: string;
  /** Requests admitted per window and key. */
  limit: number;
  windowSeconds: number;
}

/** A request the limit refused, and when the window ends. */
export interface WindowRefusal {
  retryAfterSeconds: number;
}

/**
 * Counts one request under `key`. Returns undefined when admitted, or when to retry.
 * `now` is a parameter so that tests can place a request in a window.
 */
export async function countInWindow(
  limit: FixedWindowLimit,
  key: string,
  now = Date.now(),
): Promise<WindowRefusal | undefined> {
  const windowMs = limit.windowSeconds * 1000;
  const window = Math.floor(now / windowMs);
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.rateWindow(limit.name, key, window),
        UpdateExpression: 'ADD requests :one SET expires_at_epoch = :expires',
        ConditionExpression: 'attribute_not_exists(requests) OR requests < :max',
        ExpressionAttributeValues: {
          ':one': 1,
          ':max': limit.limit,
          ':expires': ((window + 2) * windowMs) / 1000,
        },
      }),
    );
    return undefined;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) {
      return { retryAfterSeconds: Math.max(1, Math.ceil(((window + 1) * windowMs - now) / 1000)) };
    }
    throw error;
  }
}

/** countInWindow for a request that stops at the limit: refused with a 429 and `retry-after`. */
export async function admitInWindow(limit: FixedWindowLimit, key: string, message: string): Promise<void> {
  const refused = await countInWindow(limit, key);
  if (refused) throw new RateLimitedError(message, refused.retryAfterSeconds);
}
