import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { queryAll } from '#lib/db/query-all.ts';
import { storedItem } from '#lib/db/stored-item.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * Blocks of Client ID Metadata Document clients, by URL (the URL is the client_id): an operator
 * blocks a client that publishes its own document, since there is no registration to revoke.
 * A blocked URL is refused by /oauth/authorize (resolveClient) and by the code exchange, which
 * checks the block item in its transaction.
 */
export interface ClientBlock {
  client_id: string;
  blocked_at: string;
}

const clientBlockItem = storedItem<ClientBlock>('OAuth client block', () =>
  z.object({ client_id: z.string(), blocked_at: z.string() }),
);

/** Read strongly: a block takes effect from the next request on. */
export async function isClientBlocked(clientId: string): Promise<boolean> {
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: tableName,
      Key: keys.oauthClientBlock(clientId),
      ConsistentRead: true,
      ProjectionExpression: 'pk',
    }),
  );
  return Item !== undefined;
}

/** Write the block (blocking twice keeps the first time). */
export async function putClientBlock(clientId: string): Promise<ClientBlock> {
  const blockedAt = new Date().toISOString();
  const { Attributes } = await dynamo.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.oauthClientBlock(clientId),
      UpdateExpression:
        'SET client_id = :client, blocked_at = if_not_exists(blocked_at, :now), gsi1pk = if_not_exists(gsi1pk, :gsi1pk), gsi1sk = if_not_exists(gsi1sk, :gsi1sk)',
      ExpressionAttributeValues: {
        ':client': clientId,
        ':now': blockedAt,
        ':gsi1pk': keys.oauthClientBlockListing(blockedAt, clientId).gsi1pk,
        ':gsi1sk': keys.oauthClientBlockListing(blockedAt, clientId).gsi1sk,
      },
      ReturnValues: 'ALL_NEW',
    }),
  );
  // ALL_NEW always returns the item just written.
  return clientBlockItem.fromItem(Attributes ?? {});
}

/** Remove the block; whether there was one. */
export async function removeClientBlock(clientId: string): Promise<boolean> {
  const { Attributes } = await dynamo.send(
    new DeleteCommand({
      TableName: tableName,
      Key: keys.oauthClientBlock(clientId),
      ReturnValues: 'ALL_OLD',
    }),
  );
  return Attributes !== undefined;
}

/** Every blocked URL, oldest block first. */
export async function listClientBlocks(): Promise<ClientBlock[]> {
  const items = await queryAll({
    TableName: tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.oauthClientBlockListing('', '').gsi1pk },
  });
  return items.map((item) => clientBlockItem.fromItem(item));
}
