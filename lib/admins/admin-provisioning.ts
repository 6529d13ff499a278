import { randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { readByEmail, toEntry } from '#lib/admins/platform-admin-reads.ts';
import { countChange, insertEntry } from '#lib/admins/platform-admin-store.ts';
import type { PlatformAdminEntry } from '#lib/admins/schemas.ts';
import { tableName } from '#lib/db/client.ts';
import { keys, normaliseEmail } from '#lib/db/keys.ts';
import { ConflictError } from '#lib/http/errors.ts';

/**
 * Platform admins made outside the API: the first admin of a deployment (`npm run admin --
 * bootstrap`), and active admins from `npm run admin -- create` and the local seed. Admins never
 * come from an endpoint; the API only invites (lib/admins/platform-admin-store.ts).
 */
/**
 * Create an active platform admin for an e-mail address unless that address already has an entry
 * (`npm run admin -- create` and the local seed). Admins never come from an endpoint.
 */
export async function ensurePlatformAdmin(
  input: NewAdmin,
): Promise<{ created: boolean; entry: PlatformAdminEntry }> {
  const item = newAdminItem(input);
  try {
    await insertEntry(item, [countChange(+1)]);
    return { created: true, entry: toEntry(item) };
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    return { created: false, entry: toEntry(await readByEmail(item.email)) };
  }
}

/**
 * Make the first active platform admin of a deployment (`npm run admin -- bootstrap`): refused
 * with 409 once any active admin exists, decided in the same transaction as the insert, so two
 * bootstraps at once make one admin.
 */
export async function bootstrapPlatformAdmin(input: NewAdmin): Promise<PlatformAdminEntry> {
  const item = newAdminItem(input);
  try {
    await insertEntry(item, [firstAdminCount()]);
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    if (error.CancellationReasons?.[2]?.Code === 'ConditionalCheckFailed') {
      throw new ConflictError(
        'An active platform admin exists already: admins invite others from the console',
      );
    }
    const existing = toEntry(await readByEmail(item.email));
    throw new ConflictError(`${existing.email} already has an entry (${existing.kind}, ${existing.status})`);
  }
  return toEntry(item);
}

export interface NewAdmin {
  email: string;
  firstName?: string;
  lastName?: string;
}

function newAdminItem(input: NewAdmin) {
  const email = normaliseEmail(input.email);
  return {
    ...keys.platformAdmin(email),
    id: randomUUID(),
    kind: 'admin' as const,
    email,
    first_name: input.firstName ?? null,
    last_name: input.lastName ?? null,
    phone: null,
    invited_by: null,
    invited_at: null,
    accepted_at: new Date().toISOString(),
    expires_at: null,
  };
}

/** The count goes from none to one: the first admin, or nothing (the condition fails). */
function firstAdminCount() {
  return {
    Update: {
      TableName: tableName,
      Key: keys.platformAdminCount(),
      UpdateExpression: 'ADD active :one',
      ConditionExpression: 'attribute_not_exists(active) OR active < :one',
      ExpressionAttributeValues: { ':one': 1 },
    },
  };
}
