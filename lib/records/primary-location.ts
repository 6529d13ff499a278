/**
 * At most one primary location per business: a pointer item names it. Its read for a create, and the
 * transaction items (and history entry of a demoted location) that keep it in step with writes.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { historyItem } from '#lib/records/history.ts';
import type { AddAction } from '#lib/records/planned-write.ts';
import type { Actor, RecordFields, StoredItem } from '#lib/records/record-types.ts';

export async function readPrimaryPointer(businessId: string): Promise<string | null> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: keys.primaryLocation(businessId), ConsistentRead: true }),
  );
  return (Item?.location_id as string | undefined) ?? null;
}

/** At most one primary location: the pointer item names it, and a new primary clears the old one. */
export function planPrimary(
  businessId: string,
  recordId: string,
  current: StoredItem | undefined,
  next: RecordFields | undefined,
  pointer: string | null | undefined,
  actor: Actor,
  now: string,
  add: AddAction,
  histories: Record<string, unknown>[],
): void {
  const was = current?.is_primary === true;
  const will = next?.is_primary === true;
  if (was === will) return;
  const pointerKey = keys.primaryLocation(businessId);
  const seen = pointer ?? null;
  if (will) {
    add(
      { kind: 'primary' },
      {
        Put: {
          TableName: tableName,
          Item: { ...pointerKey, location_id: recordId },
          ConditionExpression: seen === null ? 'attribute_not_exists(pk)' : 'location_id = :seen',
          ...(seen === null ? {} : { ExpressionAttributeValues: { ':seen': seen } }),
        },
      },
    );
    if (seen !== null && seen !== recordId) {
      add(
        { kind: 'primary' },
        {
          Update: {
            TableName: tableName,
            Key: keys.record(businessId, 'location', seen),
            UpdateExpression:
              'SET is_primary = :false, #version = #version + :one, updated_at = :now, updated_by = :actor',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':false': false, ':one': 1, ':now': now, ':actor': actor },
          },
        },
      );
      histories.push(
        historyItem(
          businessId,
          'location',
          seen,
          'update',
          { is_primary: true },
          { is_primary: false },
          actor,
          now,
        ),
      );
    }
  } else {
    add(
      { kind: 'primary' },
      {
        Delete: {
          TableName: tableName,
          Key: pointerKey,
          ConditionExpression: 'location_id = :me',
          ExpressionAttributeValues: { ':me': recordId },
        },
      },
    );
  }
}
