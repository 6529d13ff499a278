import { agentAuth, assertAgentMayAccess, besideAgentKey } from '#lib/auth/agent-keys.ts';
import type { AgentPrincipal } from '#lib/auth/principal.ts';
import { type FeedPage, type FeedPageRequest, readFeedPage } from '#lib/events/feed-read.ts';
import type { EarlyRequestOf } from '#lib/http/early-read.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { eventRoutes } from '#lib/routes/events.ts';

const route = eventRoutes.listBusinessEvents;

/** One business's feed: the key must name the business and carry `read`. */
export const handler = httpHandler<typeof route, AgentPrincipal, FeedPage>(
  route,
  agentAuth,
  async (input) => {
    assertAgentMayAccess(input.principal, input.params.business_id, 'read');
    const page = await (input.early ?? readFeedPage(input.params.business_id, input.query));
    return { data: page.events, meta: { next_cursor: page.nextCursor } };
  },
  {
    // The page, read beside the key's lookup; shown only after the access check above.
    earlyRead: besideAgentKey((request: EarlyRequestOf<{ business_id: string }, FeedPageRequest>) =>
      readFeedPage(request.params.business_id, request.query),
    ),
  },
);
