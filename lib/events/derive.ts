import { HISTORY_PREFIX, OUTBOX_PREFIX } from '#lib/db/keys.ts';
import type { ChangeEvent, EventActor, EventType } from '#lib/events/change-event.ts';

/**
 * The change event a new item stands for (docs/events.md, 'Where events come from'), or null for
 * an item that is not an event's source. Pure: the publisher gives it each stream record's new
 * image, unmarshalled.
 *
 * - A Change History entry (`HISTORY#…`) is a record's change: its entity, record, action, the
 *   record's version after it, the fields it changed (its `after`, or `before` for a delete; their
 *   names only), the actor, and the changeset, undo or revert it belongs to.
 * - An outbox entry (`OUTBOX#…`) carries its event whole (lib/events/outbox.ts).
 */
export function eventSourceOf(item: Record<string, unknown>): EventSource | null {
  const sk = typeof item.sk === 'string' ? item.sk : '';
  if (sk.startsWith(OUTBOX_PREFIX)) {
    const event = item.event as ChangeEvent | undefined;
    return event ? { event } : null;
  }
  if (sk.startsWith(HISTORY_PREFIX)) return historySource(item);
  return null;
}

/** An event, and for a record's change where it stands among the record's changes. */
export interface EventSource {
  event: ChangeEvent;
  record?: RecordStep;
}

/**
 * A record's change as its order is checked (lib/events/publish.ts): every create or update
 * raises the record's version by one, and a delete keeps the version it had. `version` is null
 * for the one write that does not know it (a primary demoted by another record becoming primary).
 */
export interface RecordStep {
  entity: string;
  recordId: string;
  action: 'create' | 'update' | 'delete';
  version: number | null;
}

function historySource(entry: Record<string, unknown>): EventSource {
  const event = eventOfHistoryEntry(entry);
  return {
    event,
    record: {
      entity: event.entity,
      recordId: String(entry.record_id),
      action: entry.action as RecordStep['action'],
      version: typeof entry.version === 'number' ? entry.version : null,
    },
  };
}

const ACTIONS = { create: 'created', update: 'updated', delete: 'deleted' } as const;

function eventOfHistoryEntry(entry: Record<string, unknown>): ChangeEvent {
  const action = entry.action as keyof typeof ACTIONS;
  const entity = String(entry.entity);
  const past = ACTIONS[action];
  if (!past)
    throw new Error(`Change History entry ${String(entry.id)} has no known action (${String(action)})`);
  // A business is born with its profile, without a Change History entry: every profile change is an update.
  const type = (entity === 'profile' ? 'profile.updated' : `record.${past}`) as EventType;
  const fields = (action === 'delete' ? entry.before : entry.after) as Record<string, unknown> | null;
  return {
    id: String(entry.id),
    type,
    business_id: String(entry.business_id),
    entity,
    record_id: String(entry.record_id),
    // A demoted primary's entry has no version (its write did not know it); the publisher adds it.
    version: action === 'delete' || typeof entry.version !== 'number' ? null : entry.version,
    changed_fields: Object.keys(fields ?? {}).sort(),
    actor: actorOf(entry.actor as { type: EventActor['kind']; id: string; client_id?: string }),
    change_id: String(entry.id),
    changeset_id: optionalString(entry.changeset_id),
    undo_of: optionalString(entry.undo_of),
    revert_of: optionalString(entry.revert_of),
    occurred_at: String(entry.at),
  };
}

/** The Change History names the actor's `type`; the event names its `kind`, and no more. */
function actorOf(actor: { type: EventActor['kind']; id: string; client_id?: string }): EventActor {
  return {
    kind: actor.type,
    id: actor.id,
    ...(actor.client_id === undefined ? {} : { client_id: actor.client_id }),
  };
}

const optionalString = (value: unknown): string | null => (typeof value === 'string' ? value : null);
