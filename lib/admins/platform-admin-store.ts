import { randomBytes } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  entryItem,
  INVITE_KEY_ATTRIBUTE,
  INVITE_MAIL_ATTRIBUTE,
  type InviteeRead,
  readByEmailIfAny,
  readInviteFor,
  type StoredEntry,
  toEntry,
} from '#lib/admins/platform-admin-reads.ts';
import type { PlatformAdminEntry } from '#lib/admins/schemas.ts';
import type { UserPrincipal } from '#lib/auth/principal.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys, normaliseEmail } from '#lib/db/keys.ts';
import { ConflictError, ForbiddenError, GoneError } from '#lib/http/errors.ts';
import {
  assertSameRequest,
  type IdempotentCreate,
  REQUEST_HASH_ATTRIBUTE,
} from '#lib/http/idempotency/keyed-create.ts';

/**
 * Platform admins and pending invites, their writes (their items and reads are in
 * platform-admin-reads.ts). Each is one item keyed by e-mail (so an e-mail is an admin or an
 * invite, never both, and the access check finds an admin in one read), plus a pointer item by
 * entry id. A counter of active admins, changed in the same transactions, is what makes "the last
 * admin cannot be demoted" hold under concurrent demotions.
 */
export const INVITE_VALID_DAYS = 7;

/**
 * Store an invite for `email`, or refresh the pending (or expired) one it has: same id, new
 * expiry. Inviting an admin's e-mail is a 409. The caller sends the e-mail afterwards.
 *
 * With `idempotentCreate` (an Idempotency-Key) the invite also records the key, the request's hash
 * and `invite_mail: pending`; a re-run that finds the invite this key stored answers with it
 * unchanged (422 for another request). The invite's id stays random: it is the accept link's secret.
 */
export async function storeInvite(
  input: { email: string; phone?: string | null | undefined; invitedBy: string },
  idempotentCreate?: IdempotentCreate,
  /** The entry as read beside the access check (readInviteeEntry); a retry reads afresh. */
  firstRead?: InviteeRead,
): Promise<PlatformAdminEntry> {
  const email = normaliseEmail(input.email);
  const now = new Date();
  const expiresAt = new Date(now.getTime() + INVITE_VALID_DAYS * 86_400_000).toISOString();
  const existing = firstRead ? firstRead.entry : await readByEmailIfAny(email);
  if (existing?.kind === 'admin') throw new ConflictError(`${email} is already a platform admin`);
  const keyed: Record<string, string> = idempotentCreate
    ? {
        [INVITE_KEY_ATTRIBUTE]: idempotentCreate.keyHash,
        [REQUEST_HASH_ATTRIBUTE]: idempotentCreate.requestHash,
        [INVITE_MAIL_ATTRIBUTE]: 'pending',
      }
    : {};
  if (idempotentCreate && existing && existing[INVITE_KEY_ATTRIBUTE] === idempotentCreate.keyHash) {
    assertSameRequest(existing, idempotentCreate);
    return toEntry(existing);
  }
  if (existing) {
    const sets = [
      'invited_at = :now',
      'expires_at = :expires',
      'invited_by = :by',
      ...(input.phone === undefined ? [] : ['phone = :phone']),
      ...Object.keys(keyed).map((name) => `${name} = :${name}`),
    ];
    const { Attributes } = await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.platformAdmin(email),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'kind = :invite AND id = :id',
        ExpressionAttributeValues: {
          ':now': now.toISOString(),
          ':expires': expiresAt,
          ':by': input.invitedBy,
          ':invite': 'invite',
          ':id': existing.id,
          ...(input.phone === undefined ? {} : { ':phone': input.phone }),
          ...Object.fromEntries(Object.entries(keyed).map(([name, value]) => [`:${name}`, value])),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    // ALL_NEW always returns the item the condition found.
    return toEntry(entryItem.fromItem(Attributes ?? {}));
  }
  const item = {
    ...keys.platformAdmin(email),
    // 32 random bytes: the id is in the accept link, so it must not be guessable.
    id: randomBytes(32).toString('base64url'),
    kind: 'invite' as const,
    email,
    first_name: null,
    last_name: null,
    phone: input.phone ?? null,
    invited_by: input.invitedBy,
    invited_at: now.toISOString(),
    accepted_at: null,
    expires_at: expiresAt,
  };
  try {
    await insertEntry({ ...keyed, ...item });
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    // The same e-mail was invited concurrently, or this key's first run stored it and its answer
    // was lost: refresh that invite (or answer with it) instead of making a second.
    return storeInvite(input, idempotentCreate);
  }
  return toEntry(item);
}

/** Change an entry `readEntry` found: its names, phone and e-mail (409 if the e-mail is taken). */
export async function updatePlatformAdminEntry(
  current: StoredEntry,
  changes: { first_name: string; last_name: string; email: string; phone?: string | null | undefined },
): Promise<PlatformAdminEntry> {
  const entryId = current.id;
  const email = normaliseEmail(changes.email);
  const updated = {
    ...current,
    first_name: changes.first_name,
    last_name: changes.last_name,
    phone: changes.phone === undefined ? current.phone : changes.phone,
    email,
  };
  if (email === current.email) {
    await dynamo.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName,
              Item: { ...keys.platformAdmin(email), ...updated },
              ConditionExpression: 'id = :id',
              ExpressionAttributeValues: { ':id': entryId },
            },
          },
        ],
      }),
    );
    return toEntry(updated);
  }
  try {
    await dynamo.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              TableName: tableName,
              Key: keys.platformAdmin(current.email),
              ConditionExpression: 'id = :id',
              ExpressionAttributeValues: { ':id': entryId },
            },
          },
          {
            Put: {
              TableName: tableName,
              Item: { ...updated, ...keys.platformAdmin(email) },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          { Put: { TableName: tableName, Item: { ...keys.platformAdminEntry(entryId), email } } },
        ],
      }),
    );
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    if (error.CancellationReasons?.[1]?.Code === 'ConditionalCheckFailed') {
      throw new ConflictError(`${email} already belongs to another admin or invite`);
    }
    throw new ConflictError('The entry changed meanwhile; read it again');
  }
  return toEntry(updated);
}

/**
 * Remove a pending invite, or demote an admin unless they are the last active one (409): an entry
 * `readEntry` found.
 */
export async function removePlatformAdminEntry(current: StoredEntry): Promise<void> {
  const entryId = current.id;
  const isAdmin = current.kind === 'admin';
  try {
    await dynamo.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              TableName: tableName,
              Key: keys.platformAdmin(current.email),
              ConditionExpression: 'id = :id AND kind = :kind',
              ExpressionAttributeValues: { ':id': entryId, ':kind': current.kind },
            },
          },
          { Delete: { TableName: tableName, Key: keys.platformAdminEntry(entryId) } },
          ...(isAdmin ? [countChange(-1)] : []),
        ],
      }),
    );
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    if (isAdmin && error.CancellationReasons?.[2]?.Code === 'ConditionalCheckFailed') {
      throw new ConflictError('The last active platform admin cannot be demoted');
    }
    throw new ConflictError('The entry changed meanwhile; read the list again');
  }
}

/** The invitee (matched by verified e-mail, any case) becomes an active admin, exactly once. */
export async function acceptInvite(inviteId: string, user: UserPrincipal): Promise<PlatformAdminEntry> {
  const invite = await readInviteFor(inviteId, user);
  if (invite.kind === 'admin') throw new ConflictError('This invite has already been accepted');
  if (!user.emailVerified || !user.email || normaliseEmail(user.email) !== invite.email) {
    throw new ForbiddenError('This invite is for another e-mail address');
  }
  if (toEntry(invite).status === 'expired') throw new GoneError('This invite has expired; ask for a new one');
  const accepted = {
    ...invite,
    kind: 'admin' as const,
    accepted_at: new Date().toISOString(),
    expires_at: null,
  };
  try {
    await dynamo.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName,
              Item: { ...keys.platformAdmin(invite.email), ...accepted },
              ConditionExpression: 'id = :id AND kind = :invite',
              ExpressionAttributeValues: { ':id': inviteId, ':invite': 'invite' },
            },
          },
          countChange(+1),
        ],
      }),
    );
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    throw new ConflictError('This invite has already been accepted');
  }
  return toEntry(accepted);
}

/** Store a new entry (its e-mail must be free) with its pointer, and any extra actions, atomically. */
export async function insertEntry(item: StoredEntry, extra: TransactItem[] = []): Promise<void> {
  await dynamo.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: tableName,
            Item: { ...keys.platformAdmin(item.email), ...item },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        { Put: { TableName: tableName, Item: { ...keys.platformAdminEntry(item.id), email: item.email } } },
        ...extra,
      ],
    }),
  );
}

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Change the active-admin count; a decrement only while more than one admin is left. */
export function countChange(delta: 1 | -1) {
  return {
    Update: {
      TableName: tableName,
      Key: keys.platformAdminCount(),
      UpdateExpression: 'ADD active :delta',
      ...(delta < 0
        ? { ConditionExpression: 'active > :one', ExpressionAttributeValues: { ':delta': -1, ':one': 1 } }
        : { ExpressionAttributeValues: { ':delta': 1 } }),
    },
  };
}
