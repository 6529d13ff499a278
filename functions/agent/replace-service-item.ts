import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { earlyWriteRead, replaceAgentRecord } from '#lib/records/agent/operations.ts';
import { agentRoute } from '#lib/routes/agent.ts';

export const handler = httpHandler(
  agentRoute('replaceServiceItem'),
  agentAuth,
  (input) => replaceAgentRecord('service_item', input),
  {
    earlyRead: earlyWriteRead('service_item'),
  },
);
