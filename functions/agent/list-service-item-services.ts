import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { earlyMembersOwner, listAgentMembers } from '#lib/records/agent/operations.ts';
import { agentRoute } from '#lib/routes/agent.ts';

export const handler = httpHandler(
  agentRoute('listServiceItemServices'),
  agentAuth,
  (input) => listAgentMembers('service_item', input),
  {
    earlyRead: earlyMembersOwner('service_item'),
  },
);
