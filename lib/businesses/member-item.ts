import type { MemberRole } from '#lib/auth/business-access.ts';
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
