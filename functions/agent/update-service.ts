import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { earlyWriteRead, patchAgentRecord } from '#lib/records/agent/operations.ts';
import { agentRoute } from '#lib/routes/agent.ts';

export const handler = httpHandler(
  agentRoute('updateService'),
  agentAuth,
  (input) => patchAgentRecord('service', input),
  {
    earlyRead: earlyWriteRead('service'),
  },
);
