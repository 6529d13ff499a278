import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { INVITE_KEY_ATTRIBUTE, INVITE_MAIL_ATTRIBUTE } from '#lib/admins/platform-admin-reads.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys, normaliseEmail } from '#lib/db/keys.ts';
import type { IdempotentCreate } from '#lib/http/idempotency/keyed-create.ts';

/**
 * At most one invite e-mail per Idempotency-Key: the claim on an invite stored under a key
 * (lib/admins/platform-admin-store.ts `storeInvite`), taken before sending and given back only
 * when the send surely failed.
 */

type MailState = 'pending' | 'started';

/**
 * Move the invite's mail state `from` → `to`, only on the invite stored under this key. Throws
 * ConditionalCheckFailedException when the invite is not in `from` (or belongs to another key).
 */
function moveInviteMail(email: string, idempotentCreate: IdempotentCreate, from: MailState, to: MailState) {
  return dynamo.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.platformAdmin(normaliseEmail(email)),
      UpdateExpression: 'SET #mail = :to',
      ConditionExpression: '#key = :key AND #mail = :from',
      ExpressionAttributeNames: { '#mail': INVITE_MAIL_ATTRIBUTE, '#key': INVITE_KEY_ATTRIBUTE },
      ExpressionAttributeValues: { ':key': idempotentCreate.keyHash, ':from': from, ':to': to },
    }),
  );
}

/**
 * Before sending the e-mail of an invite stored under an Idempotency-Key: move it from `pending`
 * to `started`, at most once per key. False when a send has already started (a re-run must not
 * send a second e-mail) or another request has stored the invite since.
 */
export async function claimInviteMail(email: string, idempotentCreate: IdempotentCreate): Promise<boolean> {
  try {
    await moveInviteMail(email, idempotentCreate, 'pending', 'started');
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Back to `pending` after a send that surely did not happen, so a retry with the key sends it. */
export async function releaseInviteMail(email: string, idempotentCreate: IdempotentCreate): Promise<void> {
  await moveInviteMail(email, idempotentCreate, 'started', 'pending');
}
