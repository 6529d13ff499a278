import type { EditsPrincipal } from '#lib/auth/principal.ts';
import { batchGetAll } from '#lib/db/batch-get.ts';
import { tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { queryAll } from '#lib/db/query-all.ts';

/** The businesses the caller holds (owner or editor), with the role and the business's name. */
export async function listClaims(user: EditsPrincipal) {
  const memberships = await queryAll({
    TableName: tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :user',
    ExpressionAttributeValues: { ':user': keys.memberByUser(user.userId, '').gsi1pk },
  });
  const held = memberships.filter((m) => m.role === 'owner' || m.role === 'editor');
  const businesses = await batchGetAll(held.map((m) => keys.business(String(m.business_id))));
  const names = new Map(businesses.map((item) => [String(item.id), String(item.name)]));
  return held
    .filter((m) => names.has(String(m.business_id)))
    .map((m) => ({
      business_id: String(m.business_id),
      name: names.get(String(m.business_id)) ?? '',
      role: m.role as 'owner' | 'editor',
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
