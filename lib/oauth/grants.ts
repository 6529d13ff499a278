import { batchGetAll } from '#lib/db/batch-get.ts';
import { tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { queryAll } from '#lib/db/query-all.ts';
import { NotFoundError } from '#lib/http/errors.ts';
import { revokeGrant, revokeUsersGrant } from '#lib/oauth/revocation.ts';
import { securityEvent } from '#lib/oauth/security-events.ts';

/**
 * Ending grants, as people and operators do it: a person ending one of theirs, and ending every
 * grant of one client (a person's list of them is grant-list.ts). Ending a grant is revokeGrant:
 * its access tokens stop at the next request (the resource servers read the grant every time) and
 * its refresh tokens are refused.
 */

/** Grants a client's revocation ends at once, before the next batch. */
const REVOKE_BATCH = 10;
/** Grant items read per BatchGetItem while ending a client's grants. */
const READ_CHUNK = 100;

/**
 * A person ends one of their grants. Another user's grant, or one that does not exist, is a 404
 * (the same answer, so ids cannot be probed); one of theirs that has ended already is left as it
 * is, so a retried DELETE succeeds again.
 */
export async function endUserGrant(userId: string, grantId: string): Promise<void> {
  // One conditional write: it finds the grant, checks whose it is and ends it.
  const ended = await revokeUsersGrant(grantId, userId);
  if (!ended) throw new NotFoundError(`No grant ${grantId}`);
  if (!ended.wasStanding) return;
  securityEvent('grant_ended_by_user', { grant_id: grantId, client_id: ended.clientId, user_id: userId });
}

/**
 * End every grant of one client; how many were still standing. The client must already be marked
 * revoked or blocked: the code exchange writes a grant's `GRANT#` item in the client's partition
 * in the same transaction that checks that mark, so a strongly consistent read of the partition
 * afterwards finds every grant there will ever be. Running it again ends nothing twice.
 */
export async function endClientGrants(clientId: string): Promise<number> {
  const entries = await queryAll({
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :grant)',
    ExpressionAttributeValues: { ':pk': keys.oauthClientGrant(clientId, '').pk, ':grant': 'GRANT#' },
    ProjectionExpression: 'grant_id',
    ConsistentRead: true,
  });
  let ended = 0;
  for (let start = 0; start < entries.length; start += READ_CHUNK) {
    const chunk = entries.slice(start, start + READ_CHUNK);
    const grants = await batchGetAll(
      chunk.map((entry) => keys.oauthGrant(String(entry.grant_id))),
      { consistent: true },
    );
    // Only grants that still exist: revokeGrant writes, and must not recreate one the TTL removed.
    // One past its 90-day end is ended too: an access token issued shortly before still runs.
    const standing = grants.filter((grant) => grant.revoked_at === undefined);
    for (let batch = 0; batch < standing.length; batch += REVOKE_BATCH) {
      await Promise.all(
        standing.slice(batch, batch + REVOKE_BATCH).map((grant) => revokeGrant(String(grant.grant_id))),
      );
    }
    ended += standing.length;
  }
  return ended;
}
