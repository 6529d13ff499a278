import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { earlyWriteRead, setAgentMembers } from '#lib/records/agent/operations.ts';
import { agentRoute } from '#lib/routes/agent.ts';

export const handler = httpHandler(
  agentRoute('setServiceItemServices'),
  agentAuth,
  (input) => setAgentMembers('service_item', input),
  {
    earlyRead: earlyWriteRead('service_item'),
  },
);
