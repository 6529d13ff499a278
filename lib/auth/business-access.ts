import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { EditsPrincipal, UserPrincipal } from '#lib/auth/principal.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { directReader, type ItemReader } from '#lib/db/item-reader.ts';
import { type ItemKey, keys } from '#lib/db/keys.ts';
import { ForbiddenError, NotFoundError } from '#lib/http/errors.ts';

export type MemberRole = 'owner' | 'editor' | 'viewer';

/** Owners and editors "hold" a business: they may change it. Viewers only read. */
const HOLDING_ROLES: ReadonlySet<MemberRole> = new Set(['owner', 'editor']);

export interface BusinessAccess {
  businessId: string;
  role: MemberRole | undefined;
  isPlatformAdmin: boolean;
}

/** What the items read for the access decision say. */
export interface ReadAccess extends BusinessAccess {
  businessExists: boolean;
  /** The caller is a user whose user record was not among the items: remember them. */
  unseenUser: UserPrincipal | undefined;
}

/**
 * The items an authorisation decision about one business reads, in one BatchGetItem: the
 * caller's membership, whether the caller is a platform admin, whether the business exists, and
 * the caller's user record (created on first sight, so every user who ever called has one).
 *
 * An assistant acts with its user's membership and nothing more: its token carries no verified
 * e-mail, so a platform admin's reach is never delegated, and the user record already exists
 * (the user signed in to the console to approve the assistant).
 */
export function accessKeys(caller: EditsPrincipal, businessId: string): ItemKey[] {
  const wanted: ItemKey[] = [keys.business(businessId), keys.member(businessId, caller.userId)];
  if (caller.kind === 'user') {
    wanted.push(keys.user(caller.userId));
    const adminKey = platformAdminKey(caller);
    if (adminKey) wanted.push(adminKey);
  }
  return wanted;
}

/** What the items read for accessKeys (and any others beside them) say. No I/O. */
export function readAccess(
  caller: EditsPrincipal,
  businessId: string,
  items: Record<string, unknown>[],
): ReadAccess {
  const find = (key: ItemKey) => items.find((item) => item.pk === key.pk && item.sk === key.sk);
  const user = caller.kind === 'user' ? caller : undefined;
  const adminKey = user ? platformAdminKey(user) : undefined;
  return {
    businessId,
    businessExists: find(keys.business(businessId)) !== undefined,
    role: find(keys.member(businessId, caller.userId))?.role as MemberRole | undefined,
    isPlatformAdmin: (adminKey ? find(adminKey) : undefined)?.kind === 'admin',
    unseenUser: user && !find(keys.user(user.userId)) ? user : undefined,
  };
}

/** Any member may read the business. */
export const isMember = (role: MemberRole | undefined) => role !== undefined;
/** Only holders (owner, editor) may change it. */
export const holdsBusiness = (role: MemberRole | undefined) => role !== undefined && HOLDING_ROLES.has(role);

/**
 * The access decision: a role `allowed` lets the caller in, and so does being a platform admin
 * (404 if the business does not exist); anyone else is refused (403). No I/O.
 */
export function decideAccess(
  access: ReadAccess,
  allowed: (role: MemberRole | undefined) => boolean,
): BusinessAccess {
  const { businessId, role, isPlatformAdmin } = access;
  if (allowed(role)) return { businessId, role, isPlatformAdmin };
  if (isPlatformAdmin) {
    if (!access.businessExists) throw new NotFoundError(`Business ${businessId} not found`);
    return { businessId, role, isPlatformAdmin };
  }
  throw new ForbiddenError(
    role ? `Your role '${role}' cannot change this business` : 'You are not a member of this business',
  );
}

/**
 * Read the caller's access to one business (accessKeys), remembering a user seen for the first
 * time. `reads`: a reader shared with a read sent beside the check (alongside-access.ts).
 */
export async function loadBusinessAccess(
  caller: EditsPrincipal,
  businessId: string,
  reads: ItemReader = directReader,
): Promise<ReadAccess> {
  const access = readAccess(caller, businessId, await reads.getMany(accessKeys(caller, businessId)));
  if (access.unseenUser) await rememberUser(access.unseenUser);
  return access;
}

/** Any member (or a platform admin) may read the business. */
export async function assertMemberOf(
  user: EditsPrincipal,
  businessId: string,
  reads: ItemReader = directReader,
): Promise<BusinessAccess> {
  return decideAccess(await loadBusinessAccess(user, businessId, reads), isMember);
}

/** Only holders (owner, editor) or a platform admin may change the business. */
export async function assertHoldsBusiness(
  user: EditsPrincipal,
  businessId: string,
  reads: ItemReader = directReader,
): Promise<BusinessAccess> {
  return decideAccess(await loadBusinessAccess(user, businessId, reads), holdsBusiness);
}

/** Only active platform admins (recognised by their verified e-mail) pass. */
export async function assertPlatformAdmin(
  user: UserPrincipal,
  reads: ItemReader = directReader,
): Promise<void> {
  const adminKey = platformAdminKey(user);
  const items = await reads.getMany(adminKey ? [keys.user(user.userId), adminKey] : [keys.user(user.userId)]);
  if (!items.some((item) => item.sk === keys.user(user.userId).sk)) await rememberUser(user);
  const admin = adminKey
    ? items.find((item) => item.pk === adminKey.pk && item.sk === adminKey.sk)
    : undefined;
  if (admin?.kind !== 'admin') throw new ForbiddenError('Only platform admins may do this');
}

const platformAdminKey = (user: UserPrincipal) =>
  user.email && user.emailVerified ? keys.platformAdmin(user.email) : undefined;

/** The caller's user record, created on first sight. */
export async function rememberUser(user: UserPrincipal): Promise<void> {
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
