import { setTimeout as sleep } from 'node:timers/promises';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { MAX_FUNCTION_TIMEOUT_SECONDS } from '#lib/config/timeouts.ts';
import { batchGetAll } from '#lib/db/batch-get.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys, normaliseEmail } from '#lib/db/keys.ts';
import { queryAll } from '#lib/db/query-all.ts';
import { revokeGrant } from '#lib/oauth/revocation.ts';
import { securityEvent } from '#lib/oauth/security-events.ts';

/**
 * An operator ends every grant of a person (`npm run admin -- end-grants --email …`), when their
 * account is disabled or deleted: from the next request on their assistants' access tokens are
 * refused, their refresh tokens too.
 *
 * Who the person is: every user id their address approved an assistant as (written with each
 * approval, consent.ts), found with a consistent read whether or not the account still exists.
 * Their grants: each approval's record in the user's partition (consistent), and the user's grant
 * index for grants approved before those records were written. An approval whose code is not yet
 * exchanged may still become a grant: its code is withdrawn (its expiry moved to now, so the token
 * endpoint refuses it), and in case an exchange had already read it, the grant is looked for
 * again once such an exchange must have finished (the code's own expiry, and the longest a
 * function runs, have passed). Running it again ends nothing twice.
 */
export interface EndedGrant {
  grant_id: string;
  user_id: string;
  client_id: string;
  client_name: string;
  created_at: string;
}

export interface UserGrantsEnded {
  email: string;
  user_ids: string[];
  ended: EndedGrant[];
  /** Approvals whose code was withdrawn before it was exchanged. */
  codes_withdrawn: number;
}

/** Grants ended at once, before the next batch. */
const REVOKE_BATCH = 10;

export async function endGrantsOfEmail(
  address: string,
  options: {
    alsoUserIds?: string[];
    /** How to wait for unexchanged approvals to settle (a test passes its own). */
    wait?: (ms: number) => Promise<unknown>;
  } = {},
): Promise<UserGrantsEnded> {
  const email = normaliseEmail(address);
  const mapped = await queryAll({
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.oauthUserOfEmail(email, '').pk },
    ConsistentRead: true,
  });
  const userIds = [
    ...new Set([...mapped.map((item) => String(item.user_id)), ...(options.alsoUserIds ?? [])]),
  ];
  const approvals = (await Promise.all(userIds.map(approvalsOf))).flat();
  const indexed = (await Promise.all(userIds.map(indexedGrantIds))).flat();
  const grantIds = [...new Set([...approvals.map((approval) => approval.grantId), ...indexed])];

  const { ended, found } = await endStanding(grantIds);
  const unexchanged = approvals.filter(
    (approval) => !found.has(approval.grantId) && Date.parse(approval.codeExpiresAt) > Date.now(),
  );
  const withdrawn = (await Promise.all(unexchanged.map(withdrawCode))).filter(Boolean).length;
  if (unexchanged.length > 0) {
    const lastExpiry = Math.max(...unexchanged.map((approval) => Date.parse(approval.codeExpiresAt)));
    const settled = Math.max(lastExpiry, Date.now() + MAX_FUNCTION_TIMEOUT_SECONDS * 1000) + 1000;
    await (options.wait ?? sleep)(settled - Date.now());
    ended.push(...(await endStanding(unexchanged.map((approval) => approval.grantId))).ended);
  }
  return { email, user_ids: userIds, ended, codes_withdrawn: withdrawn };
}

interface Approval {
  grantId: string;
  codeHash: string;
  codeExpiresAt: string;
}

/** The user's approvals, each naming the grant its code starts. */
async function approvalsOf(userId: string): Promise<Approval[]> {
  const items = await queryAll({
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :grant)',
    ExpressionAttributeValues: { ':pk': keys.userOAuthGrant(userId, '').pk, ':grant': 'OAUTH_GRANT#' },
    ConsistentRead: true,
  });
  return items.map((item) => ({
    grantId: String(item.grant_id),
    codeHash: String(item.code_hash),
    codeExpiresAt: String(item.code_expires_at),
  }));
}

/** The user's grants in the index (eventually consistent): those approved before approvals were recorded. */
async function indexedGrantIds(userId: string): Promise<string[]> {
  const items = await queryAll({
    TableName: tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :user',
    ExpressionAttributeValues: { ':user': keys.oauthGrantOfUser(userId, '', '').gsi1pk },
    ProjectionExpression: 'grant_id',
  });
  return items.map((item) => String(item.grant_id));
}

/** End those of these grants still standing (read consistently): what they were, and which exist. */
async function endStanding(grantIds: string[]): Promise<{ ended: EndedGrant[]; found: Set<string> }> {
  const grants = await batchGetAll(
    grantIds.map((grantId) => keys.oauthGrant(grantId)),
    { consistent: true },
  );
  const standing = grants.filter((grant) => grant.revoked_at === undefined);
  for (let batch = 0; batch < standing.length; batch += REVOKE_BATCH) {
    await Promise.all(
      standing.slice(batch, batch + REVOKE_BATCH).map((grant) => revokeGrant(String(grant.grant_id))),
    );
  }
  const found = new Set(grants.map((grant) => String(grant.grant_id)));
  const ended = standing.map((grant) => {
    const one: EndedGrant = {
      grant_id: String(grant.grant_id),
      user_id: String(grant.user_id),
      client_id: String(grant.client_id),
      client_name: String(grant.client_name),
      created_at: String(grant.created_at),
    };
    securityEvent('grant_ended_by_operator', {
      grant_id: one.grant_id,
      client_id: one.client_id,
      user_id: one.user_id,
    });
    return one;
  });
  return { ended, found };
}

/** Make an unexchanged code expire now; false when it was used or is gone meanwhile. */
async function withdrawCode(approval: Approval): Promise<boolean> {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.oauthCode(approval.codeHash),
        UpdateExpression: 'SET expires_at = :now',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(used_at)',
        ExpressionAttributeValues: { ':now': new Date().toISOString() },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}
