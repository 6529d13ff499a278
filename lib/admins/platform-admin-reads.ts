import type { PlatformAdminEntry } from '#lib/admins/schemas.ts';
import type { UserPrincipal } from '#lib/auth/principal.ts';
import { tableName } from '#lib/db/client.ts';
import { byCodeUnits } from '#lib/db/code-unit-order.ts';
import { createItemReader, directReader, type ItemReader } from '#lib/db/item-reader.ts';
import { keys, normaliseEmail, PLATFORM_ADMINS } from '#lib/db/keys.ts';
import { queryAll } from '#lib/db/query-all.ts';
import { storedItem } from '#lib/db/stored-item.ts';
import { NotFoundError } from '#lib/http/errors.ts';
import { REQUEST_HASH_ATTRIBUTE } from '#lib/http/idempotency/keyed-create.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * Platform admins' and invites' entries as stored, and their reads (the writes are in
 * platform-admin-store.ts). An entry is one item keyed by e-mail, plus a pointer item by entry id
 * that names the e-mail.
 */

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

export const entryItem = storedItem<StoredEntry>('platform admin entry', () =>
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
    .sort((a, b) => (a.kind === b.kind ? byCodeUnits(a.email, b.email) : a.kind === 'admin' ? -1 : 1));
}

/** The admin or invite entry of an e-mail address (any case), if it has one. */
export async function findPlatformAdminEntry(email: string): Promise<PlatformAdminEntry | undefined> {
  const item = await readByEmailIfAny(normaliseEmail(email));
  return item ? toEntry(item) : undefined;
}

/**
 * An entry by its id: the pointer item names its e-mail, under which the entry is. Read through
 * `reads`, the pointer goes out in the admin's access check's own call (lib/auth/alongside-access.ts)
 * and the entry after it.
 */
export async function readEntry(entryId: string, reads: ItemReader = directReader): Promise<StoredEntry> {
  const pointer = await reads.get(keys.platformAdminEntry(entryId), { consistent: true });
  return foundEntry(entryId, pointer ? await readByEmailIfAny(String(pointer.email), reads) : undefined);
}

function foundEntry(entryId: string, entry: StoredEntry | undefined): StoredEntry {
  if (!entry || entry.id !== entryId) throw new NotFoundError(`No platform admin or invite ${entryId}`);
  return entry;
}

/**
 * The invite its invitee accepts, in one call when it is theirs: the pointer and the entry under
 * the caller's own e-mail go out together. Only when the pointer names another e-mail (the caller
 * will be refused) is that entry read after it, so the refusal stays the one a lone read would give.
 */
export async function readInviteFor(inviteId: string, user: UserPrincipal): Promise<StoredEntry> {
  const reads = createItemReader();
  const ownEmail = user.emailVerified && user.email ? normaliseEmail(user.email) : undefined;
  const [pointer, own] = await Promise.all([
    reads.get(keys.platformAdminEntry(inviteId), { consistent: true }),
    ownEmail ? readByEmailIfAny(ownEmail, reads) : undefined,
  ]);
  if (!pointer) return foundEntry(inviteId, undefined);
  const email = String(pointer.email);
  return foundEntry(inviteId, email === ownEmail ? own : await readByEmailIfAny(email, reads));
}

export async function readByEmailIfAny(
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
