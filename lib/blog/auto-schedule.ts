import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { nextSchedule } from '#lib/blog/schedule-rules.ts';
import {
  type BlogAutoSchedule,
  BlogAutoScheduleData,
  type BlogAutoScheduleInput,
} from '#lib/blog/schemas.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { directReader, type ItemReader } from '#lib/db/item-reader.ts';
import { keys } from '#lib/db/keys.ts';
import type { EventActor } from '#lib/events/change-event.ts';
import { outboxPut } from '#lib/events/outbox.ts';
import { ConflictError, NotFoundError } from '#lib/http/errors.ts';

const MAX_WRITE_ATTEMPTS = 3;

export async function getAutoSchedule(
  businessId: string,
  reads: ItemReader = directReader,
): Promise<BlogAutoSchedule> {
  const current = await readSchedule(businessId, reads);
  if (!current) throw new NotFoundError('This business has no blog auto-schedule');
  return current;
}

/**
 * Create or replace the schedule. Idempotent: a PUT that changes nothing writes nothing and
 * returns the schedule as it is. `next_run_at` is recomputed only when the schedule is switched
 * on or its frequency changes, so re-sending the same body never pushes the next post back.
 * The write is conditioned on what was read, so two concurrent PUTs cannot interleave. `seen` is
 * the schedule as the caller read it (readSchedule, sent beside the access check); a write that
 * finds it changed reads again. A write carries its change event (lib/events/outbox.ts).
 */
export async function putAutoSchedule(
  businessId: string,
  input: BlogAutoScheduleInput,
  seen: BlogAutoSchedule | undefined,
  actor: EventActor,
  now: () => Date = () => new Date(),
): Promise<BlogAutoSchedule> {
  for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
    const current = attempt === 0 ? seen : await readSchedule(businessId);
    const next = nextSchedule(businessId, current, input, now());
    if (next === current) return current;
    try {
      await dynamo.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName,
                Item: { ...keys.blogAutoSchedule(businessId), ...next },
                ...(current
                  ? {
                      ConditionExpression: 'updated_at = :seen',
                      ExpressionAttributeValues: { ':seen': current.updated_at },
                    }
                  : { ConditionExpression: 'attribute_not_exists(pk)' }),
              },
            },
            outboxPut({
              type: 'blog_schedule.updated',
              business_id: businessId,
              entity: 'blog_schedule',
              record_id: null,
              changed_fields: changedFields(current, next),
              actor,
            }),
          ],
        }),
      );
      return next;
    } catch (error) {
      if (!scheduleConditionFailed(error)) throw error;
      // Someone else wrote in between: read again and re-apply this PUT on top.
    }
  }
  throw new ConflictError('The schedule is being changed concurrently; retry');
}

export async function deleteAutoSchedule(businessId: string, actor: EventActor): Promise<void> {
  try {
    await dynamo.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              TableName: tableName,
              Key: keys.blogAutoSchedule(businessId),
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
          outboxPut({
            type: 'blog_schedule.deleted',
            business_id: businessId,
            entity: 'blog_schedule',
            record_id: null,
            changed_fields: [],
            actor,
          }),
        ],
      }),
    );
  } catch (error) {
    if (scheduleConditionFailed(error)) throw new NotFoundError('This business has no blog auto-schedule');
    throw error;
  }
}

/** The schedule's own condition (the first action) failed: it changed, or is not there. */
const scheduleConditionFailed = (error: unknown) =>
  error instanceof TransactionCanceledException &&
  error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed';

/** The names of the schedule's fields a write changes (all of them for a new schedule). */
function changedFields(current: BlogAutoSchedule | undefined, next: BlogAutoSchedule): string[] {
  const fields = Object.keys(next).filter(
    (field) => !['business_id', 'created_at', 'updated_at'].includes(field),
  );
  if (!current) return fields;
  return fields.filter(
    (field) => current[field as keyof BlogAutoSchedule] !== next[field as keyof BlogAutoSchedule],
  );
}

/** The business's schedule, if it has one (strongly consistent: a PUT conditions its write on it). */
export async function readSchedule(
  businessId: string,
  reads: ItemReader = directReader,
): Promise<BlogAutoSchedule | undefined> {
  const Item = await reads.get(keys.blogAutoSchedule(businessId), { consistent: true });
  // Parsing strips the key attributes and fixes the field order of the response.
  return Item ? BlogAutoScheduleData.parse(Item) : undefined;
}
