import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { earlyRecord, getAgentRecord } from '#lib/records/agent/operations.ts';
import { agentRoute } from '#lib/routes/agent.ts';

export const handler = httpHandler(
  agentRoute('getPackage'),
  agentAuth,
  (input) => getAgentRecord('package', input),
  {
    earlyRead: earlyRecord('package'),
  },
);
