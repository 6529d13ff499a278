import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { earlyMembersOwner, listAgentMembers } from '#lib/records/agent/operations.ts';
import { agentRoute } from '#lib/routes/agent.ts';

export const handler = httpHandler(
  agentRoute('listPackageServiceItems'),
  agentAuth,
  (input) => listAgentMembers('package', input),
  {
    earlyRead: earlyMembersOwner('package'),
  },
);
