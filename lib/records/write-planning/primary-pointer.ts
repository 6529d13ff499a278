/**
 * An entity's primary rule (lib/records/entities.ts): at most one primary record per business, named by a
 * pointer item. The pointer's read, and the transaction items (and history entry of a demoted
 * record) that keep it in step with writes.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import type { EntityName, PrimaryRule } from '#lib/records/entities.ts';
import type { Actor, RecordFields, StoredItem } from '#lib/records/record-types.ts';
import { historyItem } from '#lib/records/write-planning/history.ts';
import type { AddAction } from '#lib/records/write-planning/write-plan.ts';

/** The id of the business's primary record, or null when none is. */
export async function readPrimaryPointer(rule: PrimaryRule, businessId: string): Promise<string | null> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: rule.pointer(businessId), ConsistentRead: true }),
  );
  return pointedAt(rule, Item);
}

/** The id a pointer item (as read; undefined: absent) names. */
export function pointedAt(rule: PrimaryRule, item: Record<string, unknown> | undefined): string | null {
  return (item?.[rule.pointerAttribute] as string | undefined) ?? null;
}

/** The pointer follows the record's primary field, and a new primary clears the old one. */
export function planPrimary(
  entity: EntityName,
  rule: PrimaryRule,
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
  const was = current?.[rule.field] === true;
  const will = next?.[rule.field] === true;
  if (was === will) return;
  const pointerKey = rule.pointer(businessId);
  const seen = pointer ?? null;
  if (will) {
    add(
      { kind: 'primary' },
      {
        Put: {
          TableName: tableName,
          Item: { ...pointerKey, [rule.pointerAttribute]: recordId },
          ...(seen === null
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : {
                ConditionExpression: '#pointed = :seen',
                ExpressionAttributeNames: { '#pointed': rule.pointerAttribute },
                ExpressionAttributeValues: { ':seen': seen },
              }),
        },
      },
    );
    if (seen !== null && seen !== recordId) {
      add(
        { kind: 'primary' },
        {
          Update: {
            TableName: tableName,
            Key: keys.record(businessId, entity, seen),
            UpdateExpression:
              'SET #primary = :false, #version = #version + :one, updated_at = :now, updated_by = :actor',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#primary': rule.field, '#version': 'version' },
            ExpressionAttributeValues: { ':false': false, ':one': 1, ':now': now, ':actor': actor },
          },
        },
      );
      histories.push(
        historyItem(
          businessId,
          entity,
          seen,
          'update',
          { [rule.field]: true },
          { [rule.field]: false },
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
          ConditionExpression: '#pointed = :me',
          ExpressionAttributeNames: { '#pointed': rule.pointerAttribute },
          ExpressionAttributeValues: { ':me': recordId },
        },
      },
    );
  }
}
