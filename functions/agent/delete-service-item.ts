import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { deleteAgentRecord, earlyWriteRead } from '#lib/records/agent/operations.ts';
import { agentRoute } from '#lib/routes/agent.ts';

export const handler = httpHandler(
  agentRoute('deleteServiceItem'),
  agentAuth,
  (input) => deleteAgentRecord('service_item', input),
  {
    earlyRead: earlyWriteRead('service_item'),
  },
);
