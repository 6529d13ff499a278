import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys as tableKeys } from '#lib/db/keys.ts';
import { liveKeys, type PublishedKey, PublishedKey as PublishedKeySchema } from '#lib/oauth/key-schedule.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * The public keys of access tokens, as one table item beside the grants: the one truth that the
 * resource servers (edits API, tool server) read inside the account and the public
 * `/oauth/jwks` route serves. It holds public JWKs only, each with its schedule
 * (lib/oauth/key-schedule.ts); the private keys stay in Secrets Manager. Whoever creates or
 * rotates a signing key writes it here first (lib/oauth/signing-key.ts, lib/oauth/key-rotation.ts).
 */
const PublishedKeysItem = z.object({
  keys: z.array(PublishedKeySchema),
  version: z.number().check(z.int(), z.gte(1)),
});

export interface PublishedKeys {
  keys: PublishedKey[];
  /** Raised by every write; a write expects the version it read, so two writers never both win. */
  version: number;
}

/** The item is there but is not a key set we wrote: a reader must not trust it. */
export class MalformedPublishedKeysError extends Error {
  override name = 'MalformedPublishedKeysError';
}

export const publishedKeysKey = tableKeys.oauthPublishedKeys;

/** The schedule as stored in `item`; none when there is no item; throws when it is malformed. */
export function parsePublishedKeys(item: Record<string, unknown> | undefined): PublishedKeys | undefined {
  if (!item) return undefined;
  const parsed = z.safeParse(PublishedKeysItem, item);
  if (!parsed.success) throw new MalformedPublishedKeysError('The published-keys item is malformed');
  return parsed.data;
}

export async function readPublishedKeys(): Promise<PublishedKeys | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: publishedKeysKey(), ConsistentRead: true }),
  );
  return parsePublishedKeys(Item);
}

/**
 * Replace the schedule with `change(current)`, provided nobody wrote it since it was read (a few
 * attempts: writers are the token endpoint's first key and an operator's rotation, rarely at once).
 * Returns what was written, or the current schedule when `change` returns undefined (nothing to do).
 */
export async function updatePublishedKeys(
  change: (current: PublishedKeys | undefined) => PublishedKey[] | undefined,
): Promise<PublishedKeys | undefined> {
  for (let attempt = 1; ; attempt++) {
    const current = await readPublishedKeys();
    const keys = change(current);
    if (keys === undefined) return current;
    const next = { keys, version: (current?.version ?? 0) + 1 };
    try {
      await dynamo.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...publishedKeysKey(), ...next, updated_at: new Date().toISOString() },
          ...(current
            ? {
                ConditionExpression: 'version = :read',
                ExpressionAttributeValues: { ':read': current.version },
              }
            : { ConditionExpression: 'attribute_not_exists(pk)' }),
        }),
      );
      return next;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException) || attempt >= 5) throw error;
    }
  }
}

/** What `GET /oauth/jwks` serves: the live public keys (empty until the first key is published). */
export async function publishedJwks(): Promise<{ keys: PublishedKey['jwk'][] }> {
  const published = await readPublishedKeys();
  return { keys: liveKeys(published?.keys ?? [], Date.now()).map((key) => key.jwk) };
}
