/** Reviewing changesets before they are applied: reading, ticking items, discarding. */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { EditsPrincipal } from '#lib/auth/principal.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { loadOwn, moveStatus, view } from '#lib/edits/changeset-store.ts';
import { useSessionOfBusiness } from '#lib/edits/sessions.ts';
import { ConflictError, NotFoundError } from '#lib/http/errors.ts';

/** A changeset and its items; only the opener of its session may see it (404 otherwise). */
export async function readChangeset(user: EditsPrincipal, changesetId: string) {
  const { header, items } = await loadOwn(user, changesetId);
  return view(header, items);
}

export async function tickItem(user: EditsPrincipal, changesetId: string, itemId: string, ticked: boolean) {
  const { header, items } = await loadOwn(user, changesetId);
  await useSessionOfBusiness(user, header.session_id, header.business_id);
  const item = items.find((candidate) => candidate.id === itemId);
  if (!item) throw new NotFoundError(`No item ${itemId} in this changeset`);
  if (header.status !== 'staged')
    throw new ConflictError(`The changeset is ${header.status}; only staged changesets can be changed`);
  try {
    await dynamo.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: tableName,
              Key: keys.changeset(changesetId),
              ConditionExpression: '#status = :staged',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':staged': 'staged' },
            },
          },
          {
            Update: {
              TableName: tableName,
              Key: keys.changesetItem(changesetId, item.index),
              UpdateExpression: 'SET ticked = :ticked',
              ExpressionAttributeValues: { ':ticked': ticked },
            },
          },
        ],
      }),
    );
  } catch (error) {
    if ((error as Error).name === 'TransactionCanceledException')
      throw new ConflictError('The changeset is no longer staged');
    throw error;
  }
  item.ticked = ticked;
  return view(header, items);
}

export async function discardChangeset(user: EditsPrincipal, changesetId: string) {
  const { header, items } = await loadOwn(user, changesetId);
  await useSessionOfBusiness(user, header.session_id, header.business_id);
  const now = new Date().toISOString();
  await moveStatus(changesetId, ['staged'], 'discarded', { discarded_at: now });
  return view({ ...header, status: 'discarded', discarded_at: now }, items);
}
