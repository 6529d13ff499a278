/**
 * OAuth revocation (RFC 7009), apart from issuing (tokens.ts): the revocation endpoint's function
 * then bundles neither the signing key nor a Secrets Manager client, which its grants do not allow.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { hashSecret } from '#lib/oauth/hash-secret.ts';

/** RFC 7009: revoking a refresh token revokes its grant; an unknown token is not an error. */
export async function revokeToken(token: string, clientId: string | undefined): Promise<void> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: keys.oauthRefreshToken(hashSecret(token)) }),
  );
  if (!Item) return;
  if (clientId && clientId !== Item.client_id) return;
  await revokeGrant(String(Item.grant_id));
}

export async function revokeGrant(grantId: string): Promise<void> {
  await dynamo.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.oauthGrant(grantId),
      UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :now)',
      ExpressionAttributeValues: { ':now': new Date().toISOString() },
    }),
  );
}
