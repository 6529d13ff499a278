import { agentAuth, besideAgentKey } from '#lib/auth/agent-keys.ts';
import type { AgentPrincipal } from '#lib/auth/principal.ts';
import { type FeedPage, type FeedPageRequest, readFeedPage } from '#lib/events/feed-read.ts';
import type { EarlyRequestOf } from '#lib/http/early-read.ts';
import { ForbiddenError } from '#lib/http/errors.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { eventRoutes } from '#lib/routes/events.ts';

const route = eventRoutes.listEvents;

/**
 * The feed of every business the key may read: the one Query of all businesses' events, narrowed
 * to the key's businesses ('*': none dropped). The cursor moves past the events of the others too,
 * so a key of few businesses among many still moves forward page by page.
 */
export const handler = httpHandler<typeof route, AgentPrincipal, FeedPage>(
  route,
  agentAuth,
  async (input) => {
    const { businesses, scopes } = input.principal;
    if (!scopes.includes('read')) throw new ForbiddenError("This agent key lacks the 'read' scope");
    const page = await (input.early ?? readFeedPage(null, input.query));
    const allowed = businesses === '*' ? undefined : new Set(businesses.map((id) => id.toLowerCase()));
    const events = allowed
      ? page.events.filter((event) => allowed.has(event.business_id.toLowerCase()))
      : page.events;
    return { data: events, meta: { next_cursor: page.nextCursor } };
  },
  {
    // The page, read beside the key's lookup; narrowed to the key's businesses once the key is known.
    earlyRead: besideAgentKey((request: EarlyRequestOf<undefined, FeedPageRequest>) =>
      readFeedPage(null, request.query),
    ),
  },
);
