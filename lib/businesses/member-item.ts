import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { MemberRole } from '#lib/auth/business-access.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';

/** The item that makes a user a member of a business, found from the business and from the user. */
export function memberItem(businessId: string, userId: string, role: MemberRole) {
  return {
    ...keys.member(businessId, userId),
    ...keys.memberByUser(userId, businessId),
    business_id: businessId,
    user_id: userId,
    role,
    created_at: new Date().toISOString(),
  };
}

/**
 * Write an item of a business's membership (a membership, or a pending one) only while the
 * business exists: one transaction with a check of the business item, which a missing business
 * cancels (TransactionCanceledException).
 */
export async function putWhileBusinessExists(
  businessId: string,
  item: Record<string, unknown>,
): Promise<void> {
  await dynamo.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          ConditionCheck: {
            TableName: tableName,
            Key: keys.business(businessId),
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
        { Put: { TableName: tableName, Item: item } },
      ],
    }),
  );
}
