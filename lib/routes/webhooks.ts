import { EVENT_TYPES } from '#lib/events/change-event.ts';
import { lazyRow } from '#lib/routes/lazy-row.ts';
import { endpointUrl } from '#lib/validation/formats.ts';
import { once } from '#lib/validation/lazy.ts';
import * as z from '#lib/validation/zod.ts';
import { DeliveryAttemptSchema } from '#lib/webhooks/delivery-view.ts';
import { MAX_WEBHOOKS_PER_KEY, WebhookViewSchema } from '#lib/webhooks/subscription.ts';

/**
 * Webhooks (docs/webhooks.md): an agent key's subscriptions to the change events of every business
 * it may read, the delivery log, a test ping, a retry of one delivery and a replay of a time range.
 * Agent-key operations in an area of their own, so that they deploy in a stack of their own. A key
 * sees and changes only its own subscriptions: another key's is a 404, as one that does not exist.
 */
const COLLECTION = '/api/v1/agent/webhooks';
const ITEM = `${COLLECTION}/{webhook_id}`;

/** Longest endpoint URL and description accepted. */
export const WEBHOOK_URL_MAX = 2048;
export const WEBHOOK_DESCRIPTION_MAX = 500;
/** How far back a replay may start: the feed keeps 30 days. */
export const REPLAY_MAX_AGE_DAYS = 30;

const WebhookParams = once(() =>
  z.strictObject({ webhook_id: z.meta(z.uuid(), { description: 'The webhook (subscription) id' }) }),
);
const DeliveryParams = once(() =>
  z.extend(WebhookParams(), {
    delivery_id: z.meta(z.uuid(), { description: 'A delivery attempt id, from the deliveries list' }),
  }),
);

const Url = once(() =>
  z.meta(endpointUrl(WEBHOOK_URL_MAX), {
    description:
      'Where events are posted: an https URL whose host resolves to public addresses only (private, loopback, link-local and other internal addresses are refused with 422, at registration and at every delivery). Redirects are not followed.',
  }),
);
const Types = once(() =>
  z.array(z.enum(EVENT_TYPES)).check(
    z.minLength(1),
    z.refine((types) => new Set(types).size === types.length, 'a type must not repeat'),
  ),
);
const TYPES_DESCRIPTION = `Only events of these types (${EVENT_TYPES.join(', ')}); every type when absent or null.`;
const Description = once(() => z.string().check(z.maxLength(WEBHOOK_DESCRIPTION_MAX)));

const NewWebhookBody = once(() =>
  z.strictObject({
    url: Url(),
    types: z.meta(z.optional(Types()), { description: TYPES_DESCRIPTION }),
    description: z.meta(z.optional(Description()), { description: 'A note for the key holder' }),
  }),
);

const WebhookChangeBody = once(() =>
  z
    .strictObject({
      url: z.optional(Url()),
      types: z.meta(z.optional(z.nullable(Types())), { description: TYPES_DESCRIPTION }),
      description: z.optional(z.nullable(Description())),
      enabled: z.meta(z.optional(z.boolean()), {
        description:
          'false pauses deliveries (the position in the feed is kept); true resumes a paused or disabled webhook, which then gets what it missed, oldest first.',
      }),
    })
    .check(
      z.refine((change) => Object.values(change).some((value) => value !== undefined), {
        message: 'Send at least one of url, types, description, enabled',
      }),
    ),
);

const ReplayBody = once(() =>
  z.strictObject({
    from: z.meta(z.iso.datetime({ offset: true }), {
      description: `Start of the range (events' occurred_at, included); at most ${REPLAY_MAX_AGE_DAYS} days ago.`,
    }),
    to: z.meta(z.iso.datetime({ offset: true }), {
      description: 'End of the range (included); after `from`, and not in the future.',
    }),
  }),
);

const DeliveriesQuery = once(() =>
  z.strictObject({
    cursor: z.meta(z.optional(z.string().check(z.maxLength(1000))), {
      description: 'next_cursor of the previous page',
    }),
    limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 50),
  }),
);

/** A webhook as made or rotated: the view and its signing secret, shown in that answer only. */
const WebhookWithSecret = once(() =>
  z.extend(WebhookViewSchema(), {
    secret: z.meta(z.string(), {
      description:
        'The signing secret (`whsec_…`, Standard Webhooks): shown in this answer only, never again.',
    }),
  }),
);

const ReplayAccepted = once(() =>
  z.object({
    replay_id: z.uuid(),
    from: z.iso.datetime({ offset: true }),
    to: z.iso.datetime({ offset: true }),
  }),
);

const common = {
  area: 'webhooks',
  auth: 'agent',
  envelope: 'success',
} as const;

const OWN = "Another agent key's webhook is a 404, as one that does not exist.";

export const webhookRoutes = {
  createWebhook: lazyRow(
    {
      ...common,
      operationId: 'createWebhook',
      method: 'POST',
      path: COLLECTION,
      handler: 'functions/webhooks/create-webhook.ts',
      summary: 'Subscribe an endpoint to the change events of the businesses the key may read',
      description: `The webhook receives the events published after it is made. The answer carries its signing secret, shown here only. At most ${MAX_WEBHOOKS_PER_KEY} webhooks per agent key (409 past that).`,
      successStatus: 201,
      example: {
        url: 'https://example.com/webhooks/business-platform',
        types: ['record.created', 'record.updated'],
        description: 'Our CRM sync',
      },
      errors: [403, 409],
      permissions: { table: 'readwrite' },
    },
    { request: () => ({ body: NewWebhookBody() }), response: () => WebhookWithSecret() },
  ),
  listWebhooks: lazyRow(
    {
      ...common,
      operationId: 'listWebhooks',
      method: 'GET',
      path: COLLECTION,
      handler: 'functions/webhooks/list-webhooks.ts',
      summary: "The agent key's webhooks, oldest first",
      description: `Every webhook of the key (at most ${MAX_WEBHOOKS_PER_KEY}), without their secrets.`,
      successStatus: 200,
      errors: [403],
      permissions: { table: 'read' },
    },
    { request: () => ({}), response: () => z.array(WebhookViewSchema()) },
  ),
  getWebhook: lazyRow(
    {
      ...common,
      operationId: 'getWebhook',
      method: 'GET',
      path: ITEM,
      handler: 'functions/webhooks/get-webhook.ts',
      summary: 'Read one webhook and its delivery status',
      description: `Without its secret. ${OWN}`,
      successStatus: 200,
      errors: [403, 404],
      permissions: { table: 'read' },
    },
    { request: () => ({ params: WebhookParams() }), response: () => WebhookViewSchema() },
  ),
  updateWebhook: lazyRow(
    {
      ...common,
      operationId: 'updateWebhook',
      method: 'PATCH',
      path: ITEM,
      handler: 'functions/webhooks/update-webhook.ts',
      summary: 'Change, pause or resume a webhook',
      description: `Only the fields sent change (at least one); null types means every type, null description clears it. ${OWN}`,
      successStatus: 200,
      example: { enabled: false },
      errors: [403, 404],
      permissions: { table: 'readwrite' },
    },
    {
      request: () => ({ params: WebhookParams(), body: WebhookChangeBody() }),
      response: () => WebhookViewSchema(),
    },
  ),
  deleteWebhook: lazyRow(
    {
      ...common,
      operationId: 'deleteWebhook',
      method: 'DELETE',
      path: ITEM,
      handler: 'functions/webhooks/delete-webhook.ts',
      summary: 'Delete a webhook: no delivery starts after this',
      description: OWN,
      successStatus: 204,
      errors: [403, 404],
      permissions: { table: 'readwrite' },
    },
    { request: () => ({ params: WebhookParams() }) },
  ),
  rotateWebhookSecret: lazyRow(
    {
      ...common,
      operationId: 'rotateWebhookSecret',
      method: 'POST',
      path: `${ITEM}/rotate_secret`,
      handler: 'functions/webhooks/rotate-webhook-secret.ts',
      summary: 'Give a webhook a new signing secret; the old one still signs for 24 hours',
      description: `For 24 hours every delivery carries two signatures, one per secret, so a receiver switches without refusing any. The new secret is shown in this answer only. ${OWN}`,
      successStatus: 200,
      errors: [403, 404],
      permissions: { table: 'readwrite' },
    },
    { request: () => ({ params: WebhookParams() }), response: () => WebhookWithSecret() },
  ),
  testWebhook: lazyRow(
    {
      ...common,
      operationId: 'testWebhook',
      method: 'POST',
      path: `${ITEM}/test`,
      handler: 'functions/webhooks/test-webhook.ts',
      summary: 'Post a ping to the webhook now and answer with the attempt',
      description: `A \`ping\` message, signed as every delivery is, posted while the request waits (up to 10 s); the attempt says whether the endpoint answered 2xx, and is in the deliveries list. It goes even to a paused or failing webhook and changes neither. ${OWN}`,
      successStatus: 200,
      errors: [403, 404],
      permissions: { table: 'readwrite' },
    },
    { request: () => ({ params: WebhookParams() }), response: () => DeliveryAttemptSchema() },
  ),
  listWebhookDeliveries: lazyRow(
    {
      ...common,
      operationId: 'listWebhookDeliveries',
      method: 'GET',
      path: `${ITEM}/deliveries`,
      handler: 'functions/webhooks/list-webhook-deliveries.ts',
      summary: "The webhook's delivery attempts, newest first (kept 30 days)",
      description: `Each attempt: the event's id and type, when, the status code or error, how long it took, and when a failed one is tried again. Paged with \`cursor\` (the previous page's \`meta.next_cursor\`, null after the last page). ${OWN}`,
      successStatus: 200,
      errors: [403, 404],
      permissions: { table: 'read' },
    },
    {
      request: () => ({ params: WebhookParams(), query: DeliveriesQuery() }),
      response: () => z.array(DeliveryAttemptSchema()),
    },
  ),
  retryWebhookDelivery: lazyRow(
    {
      ...common,
      operationId: 'retryWebhookDelivery',
      method: 'POST',
      path: `${ITEM}/deliveries/{delivery_id}/retry`,
      handler: 'functions/webhooks/retry-webhook-delivery.ts',
      summary: "Post a delivery's event again now and answer with the new attempt",
      description: `The same event, with the same \`webhook-id\`, posted while the request waits (up to 10 s). 404 when the delivery is unknown or its event is no longer kept (30 days). ${OWN}`,
      successStatus: 200,
      errors: [403, 404],
      permissions: { table: 'readwrite' },
    },
    { request: () => ({ params: DeliveryParams() }), response: () => DeliveryAttemptSchema() },
  ),
  replayWebhook: lazyRow(
    {
      ...common,
      operationId: 'replayWebhook',
      method: 'POST',
      path: `${ITEM}/replay`,
      handler: 'functions/webhooks/replay-webhook.ts',
      summary: 'Deliver every event of a time range again, from the feed',
      description: `Accepted at once and delivered after the live events, oldest first, each with its own \`webhook-id\` as before. The range is of the events' occurred_at, both ends included: \`from\` before \`to\`, at most ${REPLAY_MAX_AGE_DAYS} days ago, \`to\` not in the future. ${OWN}`,
      successStatus: 202,
      example: { from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' },
      errors: [403, 404],
      permissions: { table: 'readwrite' },
    },
    {
      request: () => ({ params: WebhookParams(), body: ReplayBody() }),
      response: () => ReplayAccepted(),
    },
  ),
};

export type WebhookOperation = keyof typeof webhookRoutes;
