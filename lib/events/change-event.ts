import { once } from '#lib/validation/lazy.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * A change event (docs/events.md): one committed change to a business's information, named but
 * never shown. It says which record changed, its version after the change, the names of the
 * fields that changed, who changed it and through which change; a consumer reads the record for
 * the values. The same object, with the same `id`, is what the feed pages carry, what the bus
 * delivers as an event's `detail` and what a webhook posts, so consumers dedupe on `id`.
 */
export const EVENT_TYPES = [
  'record.created',
  'record.updated',
  'record.deleted',
  'profile.updated',
  'photo.added',
  'photo.deleted',
  'blog_schedule.updated',
  'blog_schedule.deleted',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The `source` of every event on the bus; a rule matches an event's type as its `detail-type`. */
export const EVENT_SOURCE = 'business-platform';

export const ACTOR_KINDS = ['agent', 'user', 'assistant', 'internal'] as const;

export interface EventActor {
  kind: (typeof ACTOR_KINDS)[number];
  /** The agent key's id, the user's id (also for an assistant, which acts for a user), or the internal caller. */
  id: string;
  /** The OAuth client of an assistant. */
  client_id?: string;
}

export interface ChangeEvent {
  /** The Change History entry's id, or the outbox entry's: the same wherever the event is seen. */
  id: string;
  type: EventType;
  business_id: string;
  /** A record kind (faq, location, …, profile), `photo` or `blog_schedule`. */
  entity: string;
  /** Null for the blog schedule, of which a business has one. */
  record_id: string | null;
  /** The record's version after the change; null after a delete and for photos and the blog schedule. */
  version: number | null;
  /** Names only, sorted: never a value. */
  changed_fields: string[];
  actor: EventActor;
  /** The Change History entry (record and profile events). */
  change_id: string | null;
  /** The changeset an applied or reverted change came from. */
  changeset_id: string | null;
  /** The Change History entry an undo undid. */
  undo_of: string | null;
  /** The changeset item a revert reverted. */
  revert_of: string | null;
  occurred_at: string;
}

/** The event as the feed's OpenAPI document describes it. */
export const ChangeEventSchema = once(() =>
  z.meta(
    z.strictObject({
      id: z.meta(z.uuid(), { description: 'Dedupe on it: the same in the feed, on the bus and in webhooks' }),
      type: z.enum(EVENT_TYPES),
      business_id: z.uuid(),
      entity: z.meta(z.string(), { description: 'A record kind, profile, photo or blog_schedule' }),
      record_id: z.meta(z.nullable(z.string()), { description: 'Null for the blog schedule' }),
      version: z.meta(z.nullable(z.number().check(z.int())), {
        description:
          "The record's version after the change; null after a delete, for photos and the blog schedule",
      }),
      changed_fields: z.meta(z.array(z.string()), { description: 'Names only, never values' }),
      actor: z.strictObject({
        kind: z.enum(ACTOR_KINDS),
        id: z.string(),
        client_id: z.optional(z.string()),
      }),
      change_id: z.meta(z.nullable(z.uuid()), { description: 'The Change History entry' }),
      changeset_id: z.nullable(z.uuid()),
      undo_of: z.meta(z.nullable(z.uuid()), { description: 'The change an undo undid' }),
      revert_of: z.meta(z.nullable(z.string()), { description: 'The changeset item a revert reverted' }),
      occurred_at: z.iso.datetime(),
    }),
    { id: 'ChangeEvent' },
  ),
);
