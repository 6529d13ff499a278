import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { earlyRecord, getAgentRecord } from '#lib/records/agent/operations.ts';
import { agentRoute } from '#lib/routes/agent.ts';

export const handler = httpHandler(
  agentRoute('getLocation'),
  agentAuth,
  (input) => getAgentRecord('location', input),
  {
    earlyRead: earlyRecord('location'),
  },
);
