import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { MemberRole } from '#lib/auth/business-access.ts';
import { memberItem, putWhileBusinessExists } from '#lib/businesses/member-item.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import type { Actor } from '#lib/records/record-types.ts';
import { planWrite } from '#lib/records/write-planning/write-plan.ts';
import { completeFields } from '#lib/records/writes/complete-fields.ts';

/** The actor of what the platform provisions itself (`npm run business -- create`). */
const PLATFORM_ACTOR: Actor = { type: 'user', id: 'platform' };

export interface Business {
  id: string;
  name: string;
  created_at: string;
}

/**
 * Businesses and their members are provisioned by the platform (the seed, tests, and later the
 * console's onboarding); no public operation of the interface creates them.
 *
 * A business is born with its profile (one profile per business, id `profile`), named
 * like the business, in the same transaction: nobody ever sees a business without one, so edits
 * always update the profile and a profile `create` is refused. Provisioning is not an edit, so the
 * profile's first version has no Change History entry (there is nothing to undo).
 */
export async function createBusiness(input: {
  name: string;
  id?: string;
  /** Who the profile's first version is by; the platform itself when a CLI provisions it. */
  createdBy?: Actor;
}): Promise<Business> {
  const business: Business = {
    id: input.id ?? randomUUID(),
    name: input.name,
    created_at: new Date().toISOString(),
  };
  const profile = planWrite({
    entity: 'profile',
    businessId: business.id,
    recordId: 'profile',
    current: undefined,
    next: completeFields('profile', { name: input.name.slice(0, 200) }),
    pointer: undefined,
    options: { actor: input.createdBy ?? PLATFORM_ACTOR },
  });
  // The profile's own items (record, count), without its "business exists" check and its history.
  const profileItems = (profile.input.TransactItems ?? []).filter((_, index) => {
    const kind = profile.roles[index]?.kind;
    return kind !== 'business' && kind !== 'history';
  });
  await dynamo.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: tableName,
            Item: { ...keys.business(business.id), ...business },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        ...profileItems,
      ],
    }),
  );
  return business;
}

/** Grant a user a role in a business (replacing any role they had), only if the business exists. */
export async function putMember(businessId: string, userId: string, role: MemberRole): Promise<void> {
  await putWhileBusinessExists(businessId, memberItem(businessId, userId, role));
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
