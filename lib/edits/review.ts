/** Reviewing changesets before they are applied: reading, ticking items, discarding, listing. */
import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { EditsPrincipal } from '#lib/auth/principal.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { type Header, headerView, loadOwn, moveStatus, view } from '#lib/edits/changeset-store.ts';
import { useSessionOfBusiness } from '#lib/edits/sessions.ts';
import { ConflictError, NotFoundError, ValidationError } from '#lib/http/errors.ts';

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

/** A business's changesets, newest first, optionally of one status. */
export async function listChangesets(
  businessId: string,
  page: { limit: number; cursor?: string | undefined; status?: string | undefined },
) {
  const start = page.cursor ? decodeCursor(page.cursor, businessId) : undefined;
  const order = keys.changesetOrder(businessId, '', '');
  const result = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ScanIndexForward: false,
      Limit: page.limit,
      ...(page.status
        ? { FilterExpression: '#status = :status', ExpressionAttributeNames: { '#status': 'status' } }
        : {}),
      ExpressionAttributeValues: { ':pk': order.gsi1pk, ...(page.status ? { ':status': page.status } : {}) },
      ...(start ? { ExclusiveStartKey: start } : {}),
    }),
  );
  const last = result.LastEvaluatedKey;
  return {
    changesets: (result.Items ?? []).map((item) => headerView(item as unknown as Header)),
    nextCursor: last ? Buffer.from(JSON.stringify([last.gsi1sk, last.pk])).toString('base64url') : null,
  };
}

function decodeCursor(cursor: string, businessId: string) {
  try {
    const [gsi1sk, pk] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    if (typeof gsi1sk === 'string' && typeof pk === 'string' && /^CHANGESET#[0-9a-f-]{36}$/.test(pk)) {
      return { pk, sk: 'CHANGESET', gsi1pk: keys.changesetOrder(businessId, '', '').gsi1pk, gsi1sk };
    }
  } catch {
    // fall through to the 422
  }
  throw new ValidationError('Invalid cursor', [
    { loc: ['query', 'cursor'], msg: 'Not a cursor this list gave out', type: 'cursor' },
  ]);
}
