import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { MemberRole } from '#lib/auth/business-access.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';

export interface Business {
  id: string;
  name: string;
  created_at: string;
}

/**
 * Businesses and their members are provisioned by the platform (the seed, tests, and later the
 * console's onboarding); no public operation of the interface creates them.
 */
export async function createBusiness(input: { name: string; id?: string }): Promise<Business> {
  const business: Business = {
    id: input.id ?? randomUUID(),
    name: input.name,
    created_at: new Date().toISOString(),
  };
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...keys.business(business.id), ...business },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return business;
}

/** Grant a user a role in a business (replacing any role they had), only if the business exists. */
export async function putMember(businessId: string, userId: string, role: MemberRole): Promise<void> {
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
        {
          Put: {
            TableName: tableName,
            Item: {
              ...keys.member(businessId, userId),
              ...keys.memberByUser(userId, businessId),
              business_id: businessId,
              user_id: userId,
              role,
              created_at: new Date().toISOString(),
            },
          },
        },
      ],
    }),
  );
}

/** Take a user's role in a business away; false when they had none. */
export async function removeMember(businessId: string, userId: string): Promise<boolean> {
  try {
    await dynamo.send(
      new DeleteCommand({
        TableName: tableName,
        Key: keys.member(businessId, userId),
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}
