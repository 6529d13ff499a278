import { storedItem } from '#lib/db/stored-item.ts';
import { EVENT_TYPES, type EventType } from '#lib/events/change-event.ts';
import { once } from '#lib/validation/lazy.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * A webhook subscription (docs/webhooks.md): an agent key's endpoint that change events are
 * posted to. It receives the events of every business its key may read, narrowed by `types`.
 *
 * Besides what its owner set, it carries its delivery state: `cursor_seq`, the position in the
 * feed of every business (lib/events/feed-writes.ts) up to which its events are delivered; the
 * failure streak (`failures`, `failing_since`, `next_attempt_at`); the lease of the one delivery
 * run that may post to it at a time; and `wake`, bumped by every event that concerns it so that a
 * run that is about to stop notices an event that came while it ran (lib/webhooks/run.ts).
 */

/** At most this many subscriptions per agent key. */
export const MAX_WEBHOOKS_PER_KEY = 10;

export interface SigningSecret {
  /** `whsec_<base64 of 32 random bytes>`, as the Standard Webhooks libraries take it. */
  secret: string;
  created_at: string;
  /** A rotated-out secret signs beside the new one until then. */
  expires_at?: string | undefined;
}

export type DisabledReason = 'paused' | 'gone' | 'failing' | 'key_revoked';

export interface WebhookSubscription {
  webhook_id: string;
  key_id: string;
  /** The key's businesses when the subscription was made (a key's businesses never change). */
  businesses: '*' | string[];
  url: string;
  /** Null: every type. */
  types: EventType[] | null;
  description: string | null;
  enabled: boolean;
  disabled_reason?: DisabledReason | undefined;
  disabled_at?: string | undefined;
  /** Newest first. */
  secrets: SigningSecret[];
  created_at: string;
  updated_at: string;
  cursor_seq: number;
  failures: number;
  failing_since?: string | undefined;
  next_attempt_at?: string | undefined;
  last_error?: string | undefined;
  lease_owner?: string | undefined;
  lease_until?: string | undefined;
  wake: number;
}

export const subscriptionItem = storedItem<WebhookSubscription>('webhook subscription', () =>
  z.object({
    webhook_id: z.string(),
    key_id: z.string(),
    businesses: z.union([z.literal('*'), z.array(z.string())]),
    url: z.string(),
    types: z.nullable(z.array(z.enum(EVENT_TYPES))),
    description: z.nullable(z.string()),
    enabled: z.boolean(),
    disabled_reason: z.optional(z.enum(['paused', 'gone', 'failing', 'key_revoked'])),
    disabled_at: z.optional(z.string()),
    secrets: z.array(
      z.object({ secret: z.string(), created_at: z.string(), expires_at: z.optional(z.string()) }),
    ),
    created_at: z.string(),
    updated_at: z.string(),
    cursor_seq: z.number(),
    failures: z.number(),
    failing_since: z.optional(z.string()),
    next_attempt_at: z.optional(z.string()),
    last_error: z.optional(z.string()),
    lease_owner: z.optional(z.string()),
    lease_until: z.optional(z.string()),
    wake: z.number(),
  }),
);

/** Does the subscription want this event: one of its key's businesses, one of its types? */
export function wants(
  subscription: Pick<WebhookSubscription, 'businesses' | 'types'>,
  event: { business_id: string; type: string },
): boolean {
  const business =
    subscription.businesses === '*' || subscription.businesses.includes(event.business_id.toLowerCase());
  return business && (subscription.types === null || subscription.types.includes(event.type as EventType));
}

/** The secrets that sign a delivery at `now`: the current one and any rotated out less than 24 h ago. */
export const signingSecrets = (subscription: Pick<WebhookSubscription, 'secrets'>, now: Date): string[] =>
  subscription.secrets
    .filter((entry) => entry.expires_at === undefined || Date.parse(entry.expires_at) > now.getTime())
    .map((entry) => entry.secret);

/** What the API shows of a subscription: never a secret (those are shown once, when made). */
export interface WebhookView {
  id: string;
  url: string;
  types: EventType[] | null;
  description: string | null;
  enabled: boolean;
  /** active, failing (retrying), or disabled (see disabled_reason). */
  status: 'active' | 'failing' | 'disabled';
  disabled_reason: DisabledReason | null;
  disabled_at: string | null;
  failing_since: string | null;
  next_attempt_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export function webhookView(subscription: WebhookSubscription): WebhookView {
  return {
    id: subscription.webhook_id,
    url: subscription.url,
    types: subscription.types,
    description: subscription.description,
    enabled: subscription.enabled,
    status: !subscription.enabled ? 'disabled' : subscription.failures > 0 ? 'failing' : 'active',
    disabled_reason: subscription.disabled_reason ?? null,
    disabled_at: subscription.disabled_at ?? null,
    failing_since: subscription.failing_since ?? null,
    next_attempt_at: subscription.next_attempt_at ?? null,
    last_error: subscription.last_error ?? null,
    created_at: subscription.created_at,
    updated_at: subscription.updated_at,
  };
}

export const WebhookViewSchema = once(() =>
  z.object({
    id: z.uuid(),
    url: z.url(),
    types: z.nullable(z.array(z.enum(EVENT_TYPES))),
    description: z.nullable(z.string()),
    enabled: z.boolean(),
    status: z.enum(['active', 'failing', 'disabled']),
    disabled_reason: z.nullable(z.enum(['paused', 'gone', 'failing', 'key_revoked'])),
    disabled_at: z.nullable(z.iso.datetime()),
    failing_since: z.nullable(z.iso.datetime()),
    next_attempt_at: z.nullable(z.iso.datetime()),
    last_error: z.nullable(z.string()),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  }),
);
