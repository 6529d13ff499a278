import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { earlyWriteRead, setAgentMembers } from '#lib/records/agent/operations.ts';
import { agentRoute } from '#lib/routes/agent.ts';

export const handler = httpHandler(
  agentRoute('setPackageServiceItems'),
  agentAuth,
  (input) => setAgentMembers('package', input),
  {
    earlyRead: earlyWriteRead('package'),
  },
);
