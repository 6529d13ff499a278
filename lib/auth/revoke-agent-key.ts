import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type AgentKeyRecord, agentKeyItem, findAgentKeyItem } from '#lib/auth/agent-keys.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { NotFoundError } from '#lib/http/errors.ts';
import { disableWebhooksOfKey } from '#lib/webhooks/store.ts';

/**
 * Revoke an agent key (`npm run agent-key -- revoke`): it is refused from the next request on, and
 * its webhooks are disabled (`key_revoked`) so that they stop delivering; a delivery run checks
 * the key as well, for a revocation that stopped before its webhooks.
 *
 * Not in agent-keys.ts, which every agent function bundles: the webhook store brings the signing
 * library along, and only the command line revokes keys.
 */
export async function revokeAgentKey(keyId: string): Promise<AgentKeyRecord> {
  const item = await findAgentKeyItem(keyId);
  if (!item) throw new NotFoundError(`No agent key with id ${keyId}`);
  const updated = await dynamo.send(
    new UpdateCommand({
      TableName: tableName,
      Key: { pk: item.pk as string, sk: item.sk as string },
      UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :now)',
      ExpressionAttributeValues: { ':now': new Date().toISOString() },
      ReturnValues: 'ALL_NEW',
    }),
  );
  const record = agentKeyItem.fromItem(updated.Attributes ?? item);
  await disableWebhooksOfKey(record.key_id);
  return record;
}
