import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import type { ItemKey } from '#lib/db/keys.ts';
import { ServiceUnavailableError } from '#lib/http/errors.ts';

const MAX_KEYS_PER_CALL = 100;
const MAX_ATTEMPTS = 5;

/**
 * The items found for these keys (missing ones are simply absent), in as few BatchGetItem calls
 * as DynamoDB allows: 100 keys a call, each key once, and the keys it hands back unprocessed under
 * load asked again with a short backoff. Still unprocessed after that: 503, retry later.
 */
export async function batchGetAll(
  wanted: ItemKey[],
  options: { consistent?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const unique = [...new Map(wanted.map((key) => [`${key.pk}\u0000${key.sk}`, key])).values()];
  const chunks: ItemKey[][] = [];
  for (let start = 0; start < unique.length; start += MAX_KEYS_PER_CALL)
    chunks.push(unique.slice(start, start + MAX_KEYS_PER_CALL));
  // Chunks are independent: they go out together, one round trip however many there are.
  return (await Promise.all(chunks.map((chunk) => getChunk(chunk, options)))).flat();
}

async function getChunk(keys: ItemKey[], options: { consistent?: boolean }) {
  const found: Record<string, unknown>[] = [];
  let pending = keys;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt === MAX_ATTEMPTS)
      throw new ServiceUnavailableError('The service is busy; retry shortly', 'throttled', 2);
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 10 * 2 ** attempt));
    const result = await dynamo.send(
      new BatchGetCommand({
        RequestItems: {
          [tableName]: { Keys: pending, ...(options.consistent ? { ConsistentRead: true } : {}) },
        },
      }),
    );
    found.push(...(result.Responses?.[tableName] ?? []));
    pending = (result.UnprocessedKeys?.[tableName]?.Keys ?? []) as ItemKey[];
  }
  return found;
}
