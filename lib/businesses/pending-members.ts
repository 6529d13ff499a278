import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { MemberRole } from '#lib/auth/business-access.ts';
import { memberItem, putWhileBusinessExists } from '#lib/businesses/member-item.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys, normaliseEmail, pendingMembers } from '#lib/db/keys.ts';
import { queryAll } from '#lib/db/query-all.ts';
import { storedItem } from '#lib/db/stored-item.ts';
import { NotFoundError } from '#lib/http/errors.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * Memberships of people who have no account yet. A membership is keyed by the user id, which
 * needs the identity provider's subject, and Cognito gives a subject only at sign-up; so an
 * invitation to a business by e-mail is stored by that e-mail until the person has confirmed
 * their address, then becomes a membership (functions/triggers/post-confirmation.ts). Until then
 * it is also what lets the address sign up at all (lib/auth/sign-up-admission.ts).
 */
export interface PendingMember {
  business_id: string;
  email: string;
  role: MemberRole;
  invited_at: string;
}

const pendingMemberItem = storedItem<PendingMember>('pending member', () =>
  z.object({
    business_id: z.string(),
    email: z.string(),
    role: z.enum(['owner', 'editor', 'viewer']),
    invited_at: z.string(),
  }),
);

/** Invite an address to a business with a role (replacing a pending role it had); 404 for no business. */
export async function putPendingMember(
  businessId: string,
  email: string,
  role: MemberRole,
): Promise<PendingMember> {
  const pending: PendingMember = {
    business_id: businessId,
    email: normaliseEmail(email),
    role,
    invited_at: new Date().toISOString(),
  };
  try {
    await putWhileBusinessExists(businessId, { ...keys.pendingMember(email, businessId), ...pending });
  } catch (error) {
    if (error instanceof TransactionCanceledException) throw new NotFoundError(`No business ${businessId}`);
    throw error;
  }
  return pending;
}

/** Withdraw an address's pending membership of a business; false when it had none. */
export async function removePendingMember(businessId: string, email: string): Promise<boolean> {
  const { Attributes } = await dynamo.send(
    new DeleteCommand({
      TableName: tableName,
      Key: keys.pendingMember(email, businessId),
      ReturnValues: 'ALL_OLD',
    }),
  );
  return Attributes !== undefined;
}

/** Whether an address has at least one pending membership (one read of its partition). */
export async function hasPendingMembership(email: string): Promise<boolean> {
  const { Items } = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pendingMembers(email) },
      ProjectionExpression: 'pk',
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  return (Items?.length ?? 0) > 0;
}

/**
 * Turn the address's pending memberships into memberships of `userId`, each exactly once: the
 * membership is written in the same transaction that deletes the pending item, on condition it is
 * still there. A retried or concurrent run (Cognito retries triggers) finds nothing left to claim
 * or loses the condition, and writes nothing twice. Returns what this run claimed.
 */
export async function claimPendingMemberships(email: string, userId: string): Promise<PendingMember[]> {
  const items = await queryAll({
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': pendingMembers(email) },
    ConsistentRead: true,
  });
  const pending = items.map((item) => pendingMemberItem.fromItem(item));
  const claimed = await Promise.all(pending.map((membership) => claim(membership, userId)));
  return pending.filter((_, index) => claimed[index]);
}

/** Attempts of one claim that meets another transaction on the same items (the other may fail). */
const CLAIM_ATTEMPTS = 3;

async function claim(pending: PendingMember, userId: string): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    try {
      await dynamo.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: tableName,
                Key: keys.pendingMember(pending.email, pending.business_id),
                ConditionExpression: 'attribute_exists(pk)',
              },
            },
            { Put: { TableName: tableName, Item: memberItem(pending.business_id, userId, pending.role) } },
          ],
        }),
      );
      return true;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const codes = (error.CancellationReasons ?? []).map((reason) => reason.Code);
      // Another run claimed it first.
      if (codes[0] === 'ConditionalCheckFailed') return false;
      if (!codes.includes('TransactionConflict') || attempt === CLAIM_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
    }
  }
}
