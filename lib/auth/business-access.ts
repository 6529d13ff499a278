import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { EditsPrincipal, UserPrincipal } from '#lib/auth/principal.ts';
import { batchGetAll } from '#lib/db/batch-get.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { type ItemKey, keys } from '#lib/db/keys.ts';
import { ForbiddenError, NotFoundError } from '#lib/http/errors.ts';

export type MemberRole = 'owner' | 'editor' | 'viewer';

/** Owners and editors "hold" a business: they may change it. Viewers only read. */
const HOLDING_ROLES: ReadonlySet<MemberRole> = new Set(['owner', 'editor']);

export interface BusinessAccess {
  businessId: string;
  role: MemberRole | undefined;
  isPlatformAdmin: boolean;
  /** The items of `alsoRead` that exist, when the check was asked to read some. */
  alsoFound?: Record<string, unknown>[];
}

/**
 * Everything an authorisation decision about one business needs, in one BatchGetItem: the
 * caller's membership, whether the caller is a platform admin, whether the business exists, and
 * the caller's user record (created on first sight, so every user who ever called has one).
 *
 * An assistant acts with its user's membership and nothing more: its token carries no verified
 * e-mail, so a platform admin's reach is never delegated, and the user record already exists
 * (the user signed in to the console to approve the assistant).
 */
export async function loadBusinessAccess(
  caller: EditsPrincipal,
  businessId: string,
  alsoRead: ItemKey[] = [],
): Promise<BusinessAccess & { businessExists: boolean }> {
  const user = caller.kind === 'user' ? caller : undefined;
  const wanted: ItemKey[] = [keys.business(businessId), keys.member(businessId, caller.userId)];
  if (user) wanted.push(keys.user(user.userId));
  const adminKey = user?.email && user.emailVerified ? keys.platformAdmin(user.email) : undefined;
  if (adminKey) wanted.push(adminKey);

  // Items a caller needs right after the check (the records an apply changes) share its call, read
  // consistently as that caller needs them.
  const items = await batchGetAll([...wanted, ...alsoRead], { consistent: alsoRead.length > 0 });
  const find = (key: ItemKey) => items.find((item) => item.pk === key.pk && item.sk === key.sk);
  const member = find(keys.member(businessId, caller.userId));
  const admin = adminKey ? find(adminKey) : undefined;
  if (user && !find(keys.user(user.userId))) await rememberUser(user);

  const accessKeys = new Set(wanted.map((key) => `${key.pk}\u0000${key.sk}`));
  const alsoFound =
    alsoRead.length > 0 ? items.filter((item) => !accessKeys.has(`${item.pk}\u0000${item.sk}`)) : undefined;
  return {
    businessId,
    businessExists: find(keys.business(businessId)) !== undefined,
    role: member?.role as MemberRole | undefined,
    isPlatformAdmin: admin?.kind === 'admin',
    ...(alsoFound ? { alsoFound } : {}),
  };
}

/** Any member (or a platform admin) may read the business. */
export async function assertMemberOf(user: EditsPrincipal, businessId: string): Promise<BusinessAccess> {
  return authorise(user, businessId, (role) => role !== undefined);
}

/** Only holders (owner, editor) or a platform admin may change the business. */
export async function assertHoldsBusiness(
  user: EditsPrincipal,
  businessId: string,
  alsoRead: ItemKey[] = [],
): Promise<BusinessAccess> {
  return authorise(user, businessId, (role) => role !== undefined && HOLDING_ROLES.has(role), alsoRead);
}

/** Only active platform admins (recognised by their verified e-mail) pass. */
export async function assertPlatformAdmin(user: UserPrincipal): Promise<void> {
  const adminKey = user.email && user.emailVerified ? keys.platformAdmin(user.email) : undefined;
  const items = await batchGetAll(adminKey ? [keys.user(user.userId), adminKey] : [keys.user(user.userId)]);
  if (!items.some((item) => item.sk === keys.user(user.userId).sk)) await rememberUser(user);
  const admin = adminKey
    ? items.find((item) => item.pk === adminKey.pk && item.sk === adminKey.sk)
    : undefined;
  if (admin?.kind !== 'admin') throw new ForbiddenError('Only platform admins may do this');
}

async function authorise(
  user: EditsPrincipal,
  businessId: string,
  allowed: (role: MemberRole | undefined) => boolean,
  alsoRead: ItemKey[] = [],
): Promise<BusinessAccess> {
  const { businessExists, ...access } = await loadBusinessAccess(user, businessId, alsoRead);
  if (allowed(access.role)) return access;
  if (access.isPlatformAdmin) {
    if (!businessExists) throw new NotFoundError(`Business ${businessId} not found`);
    return access;
  }
  throw new ForbiddenError(
    access.role
      ? `Your role '${access.role}' cannot change this business`
      : 'You are not a member of this business',
  );
}

async function rememberUser(user: UserPrincipal): Promise<void> {
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...keys.user(user.userId),
          user_id: user.userId,
          issuer: user.issuer,
          subject: user.subject,
          email: user.email,
          email_verified: user.emailVerified,
          created_at: new Date().toISOString(),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    // A concurrent first request created it already: that is the outcome we wanted.
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}
