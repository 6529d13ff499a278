import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { v7 as uuidv7 } from 'uuid';
import { tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import type { ChangeEvent, EventActor } from '#lib/events/change-event.ts';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** An outbox entry outlives its stream record by far: the stream keeps records 24 hours. */
const OUTBOX_TTL_SECONDS = 2 * 24 * 3600;

/** What a write without a Change History entry says about itself; the rest of the event is fixed. */
export type OutboxChange = Pick<
  ChangeEvent,
  'type' | 'business_id' | 'entity' | 'record_id' | 'changed_fields'
> & {
  actor: EventActor;
};

/**
 * The transactional outbox of writes that have no Change History entry (photos, the blog
 * schedule): the event, whole, as an item put in the write's own transaction, so that the change
 * and its event commit together or not at all. The publisher reads it from the stream
 * (lib/events/derive.ts); nothing reads the item, and TTL removes it.
 */
export function outboxPut(change: OutboxChange, now: Date = new Date()): TransactItem {
  const id = uuidv7({ msecs: now.getTime() });
  const event: ChangeEvent = {
    id,
    type: change.type,
    business_id: change.business_id,
    entity: change.entity,
    record_id: change.record_id,
    version: null,
    changed_fields: [...change.changed_fields].sort(),
    actor: change.actor,
    change_id: null,
    changeset_id: null,
    undo_of: null,
    revert_of: null,
    occurred_at: now.toISOString(),
  };
  return {
    Put: {
      TableName: tableName,
      Item: {
        ...keys.eventOutbox(change.business_id, id),
        event,
        expires_at_epoch: Math.floor(now.getTime() / 1000) + OUTBOX_TTL_SECONDS,
      },
    },
  };
}
