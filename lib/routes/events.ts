import { ChangeEventSchema, EVENT_TYPES, type EventType } from '#lib/events/change-event.ts';
import { BusinessPathParams } from '#lib/http/common-schemas.ts';
import { lazyRow } from '#lib/routes/lazy-row.ts';
import { once } from '#lib/validation/lazy.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * The event feed (docs/events.md, 'The feed'): the change events of one business, or of every
 * business an agent key may read, in publication order, paged with `after`. Agent-key operations
 * like the agent API's, in an area of their own so that they deploy in a stack of their own.
 */
const escaped = (type: string) => type.replace(/\./g, '\\.');
const ONE_TYPE = `(?:${EVENT_TYPES.map(escaped).join('|')})`;
const TYPE_LIST = new RegExp(`^${ONE_TYPE}(?:,${ONE_TYPE})*$`);

const FeedQuery = once(() =>
  z.strictObject({
    after: z.meta(z.optional(z.string().check(z.maxLength(1000))), {
      description:
        'meta.next_cursor of the previous page: the page starts after it. Without it, the page starts at the oldest event kept (30 days).',
    }),
    limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(500)), 100),
    types: z.meta(
      z.optional(
        z.pipe(
          z
            .string()
            .check(
              z.maxLength(1000),
              z.regex(TYPE_LIST, `a comma-separated list of ${EVENT_TYPES.join(', ')}`),
            ),
          z.transform((value: string) => value.split(',') as EventType[]),
        ),
      ),
      {
        description: `Only events of these types (comma-separated): ${EVENT_TYPES.join(', ')}. The cursor still moves past the others.`,
      },
    ),
  }),
);

const common = {
  area: 'events',
  auth: 'agent',
  envelope: 'success',
  method: 'GET',
  successStatus: 200,
  permissions: { table: 'read' },
} as const;

const PAGING =
  'Oldest first; `meta.next_cursor` is always given: a page past the end is empty and its cursor is the one to poll with. A page may hold fewer than `limit` events and still not be the last (filtered events still move the cursor). A cursor is good for 30 days (410 after).';

export const eventRoutes = {
  listBusinessEvents: lazyRow(
    {
      ...common,
      operationId: 'listBusinessEvents',
      path: '/api/v1/agent/businesses/{business_id}/events',
      handler: 'functions/events/list-business-events.ts',
      summary: "The business's change events, in order (the feed)",
      errors: [403, 410],
      description: `Every committed change to the business's information, once each. ${PAGING}`,
    },
    {
      request: () => ({ params: BusinessPathParams, query: FeedQuery() }),
      response: () => z.array(ChangeEventSchema()),
    },
  ),
  listEvents: lazyRow(
    {
      ...common,
      operationId: 'listEvents',
      path: '/api/v1/agent/events',
      handler: 'functions/events/list-events.ts',
      summary: 'The change events of every business the agent key may read, in order',
      errors: [403, 410],
      description: `One feed for a key of several or all businesses: the events of the businesses the key names ('*': all), in one order. ${PAGING}`,
    },
    {
      request: () => ({ query: FeedQuery() }),
      response: () => z.array(ChangeEventSchema()),
    },
  ),
};
