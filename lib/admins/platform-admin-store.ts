import { randomBytes } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  GetCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { PlatformAdminEntry } from '#lib/admins/schemas.ts';
import type { UserPrincipal } from '#lib/auth/principal.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { directReader, type ItemReader } from '#lib/db/item-reader.ts';
import { keys, normaliseEmail, PLATFORM_ADMINS } from '#lib/db/keys.ts';
import { queryAll } from '#lib/db/query-all.ts';
import { storedItem } from '#lib/db/stored-item.ts';
import { ConflictError, ForbiddenError, GoneError, NotFoundError } from '#lib/http/errors.ts';
import {
  assertSameRequest,
  type IdempotentCreate,
  REQUEST_HASH_ATTRIBUTE,
} from '#lib/http/idempotency/keyed-create.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * Platform admins and pending invites. Each is one item keyed by e-mail (so an e-mail
 * is an admin or an invite, never both, and the access check finds an admin in one read), plus a
 * pointer item by entry id. A counter of active admins, changed in the same transactions, is what
 * makes "the last admin cannot be demoted" hold under concurrent demotions.
 */
export const INVITE_VALID_DAYS = 7;

/**
 * Hidden attributes of an invite stored under an Idempotency-Key: which key stored it, and
 * whether its e-mail is still to be sent (`pending`) or a send has started (`started`).
 */
export const INVITE_KEY_ATTRIBUTE = 'idempotency_key';
export const INVITE_MAIL_ATTRIBUTE = 'invite_mail';

/**
 * An admin's or invite's item: the entry without its status (which follows from kind and expiry),
 * with the hidden attributes of an invite stored under an Idempotency-Key. The store writes what it
 * read back whole, so every attribute an entry item holds is named here.
 */
export type StoredEntry = Omit<PlatformAdminEntry, 'status'> & {
  [INVITE_KEY_ATTRIBUTE]?: string;
  [REQUEST_HASH_ATTRIBUTE]?: string;
  [INVITE_MAIL_ATTRIBUTE]?: string;
};

const nullableText = () => z._default(z.nullable(z.string()), null);

const entryItem = storedItem<StoredEntry>('platform admin entry', () =>
  z.object({
    id: z.string(),
    kind: z.enum(['admin', 'invite']),
    email: z.string(),
    first_name: nullableText(),
    last_name: nullableText(),
    phone: nullableText(),
    invited_by: nullableText(),
    invited_at: nullableText(),
    accepted_at: nullableText(),
    expires_at: nullableText(),
    [INVITE_KEY_ATTRIBUTE]: z.optional(z.string()),
    [REQUEST_HASH_ATTRIBUTE]: z.optional(z.string()),
    [INVITE_MAIL_ATTRIBUTE]: z.optional(z.string()),
  }),
);

export function toEntry(stored: StoredEntry, now = Date.now()): PlatformAdminEntry {
  const expired =
    stored.kind === 'invite' && stored.expires_at !== null && Date.parse(stored.expires_at) <= now;
  return {
    id: stored.id,
    kind: stored.kind,
    status: stored.kind === 'admin' ? 'active' : expired ? 'expired' : 'pending',
    email: stored.email,
    first_name: stored.first_name ?? null,
    last_name: stored.last_name ?? null,
    phone: stored.phone ?? null,
    invited_by: stored.invited_by ?? null,
    invited_at: stored.invited_at ?? null,
    accepted_at: stored.accepted_at ?? null,
    expires_at: stored.expires_at ?? null,
  };
}

/** Admins and invites (pending or expired), admins first, then by e-mail. */
export async function listPlatformAdminEntries(): Promise<PlatformAdminEntry[]> {
  const items = await queryAll({
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :email)',
    ExpressionAttributeValues: { ':pk': PLATFORM_ADMINS, ':email': 'EMAIL#' },
    ConsistentRead: true,
  });
  return items
    .map((item) => toEntry(entryItem.fromItem(item)))
    .sort((a, b) => (a.kind === b.kind ? a.email.localeCompare(b.email) : a.kind === 'admin' ? -1 : 1));
}

/** The admin or invite entry of an e-mail address (any case), if it has one. */
export async function findPlatformAdminEntry(email: string): Promise<PlatformAdminEntry | undefined> {
  const item = await readByEmailIfAny(normaliseEmail(email));
  return item ? toEntry(item) : undefined;
}

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

export async function updatePlatformAdminEntry(
  entryId: string,
  changes: { first_name: string; last_name: string; email: string; phone?: string | null | undefined },
): Promise<PlatformAdminEntry> {
  const current = await readByEntryId(entryId);
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

/** Remove a pending invite, or demote an admin unless they are the last active one (409). */
export async function removePlatformAdminEntry(entryId: string): Promise<void> {
  const current = await readByEntryId(entryId);
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
  const invite = await readByEntryId(inviteId);
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

async function readByEntryId(entryId: string): Promise<StoredEntry> {
  const { Item: pointer } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: keys.platformAdminEntry(entryId), ConsistentRead: true }),
  );
  const entry = pointer ? await readByEmailIfAny(String(pointer.email)) : undefined;
  if (!entry || entry.id !== entryId) throw new NotFoundError(`No platform admin or invite ${entryId}`);
  return entry;
}

async function readByEmailIfAny(
  email: string,
  reads: ItemReader = directReader,
): Promise<StoredEntry | undefined> {
  const Item = await reads.get(keys.platformAdmin(email), { consistent: true });
  return Item && entryItem.fromItem(Item);
}

/** What an invite found under its e-mail before writing: an admin, an invite, or nothing. */
export interface InviteeRead {
  entry: StoredEntry | undefined;
}

/**
 * The entry an invite of `email` will find, read through `reads` so that it can go out beside the
 * inviter's access check (lib/auth/alongside-access.ts); `storeInvite` takes it as its first read.
 */
export async function readInviteeEntry(email: string, reads: ItemReader): Promise<InviteeRead> {
  return { entry: await readByEmailIfAny(normaliseEmail(email), reads) };
}

export async function readByEmail(email: string): Promise<StoredEntry> {
  const entry = await readByEmailIfAny(email);
  if (!entry) throw new NotFoundError(`No platform admin or invite for ${email}`);
  return entry;
}
