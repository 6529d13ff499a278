import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt } from 'jose';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { hashSecret } from '#lib/oauth/hash-secret.ts';
import { baseUrl, postForm } from './oauth.ts';

/** Grants and refresh tokens as stored in DynamoDB Local, read and edited directly. */
export const grantIdOf = (accessToken: string) => String(decodeJwt(accessToken).gid);

export async function readGrant(grantId: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: keys.oauthGrant(grantId), ConsistentRead: true }),
  );
  return Item;
}

export async function readRefreshToken(token: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: tableName,
      Key: keys.oauthRefreshToken(hashSecret(token)),
      ConsistentRead: true,
    }),
  );
  return Item;
}

/** Overwrite attributes of a stored grant (a date moved into the past, say). */
export async function setGrant(grantId: string, fields: Record<string, unknown>): Promise<void> {
  const names = Object.keys(fields);
  await dynamo.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.oauthGrant(grantId),
      UpdateExpression: `SET ${names.map((_, index) => `#f${index} = :v${index}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((name, index) => [`#f${index}`, name])),
      ExpressionAttributeValues: Object.fromEntries(names.map((name, index) => [`:v${index}`, fields[name]])),
      ConditionExpression: 'attribute_exists(pk)',
    }),
  );
}

export const refreshWith = (token: string, clientId: string) =>
  postForm('/oauth/token', { grant_type: 'refresh_token', refresh_token: token, client_id: clientId });

/** The status the tool server answers an access token with (a tools/list, as the transport sends it). */
export async function mcpStatus(accessToken: string): Promise<number> {
  const response = await fetch(`${baseUrl()}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      authorization: `Bearer ${accessToken}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  await response.arrayBuffer();
  return response.status;
}
