import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { deleteAgentRecord, earlyWriteRead } from '#lib/records/agent/operations.ts';
import { agentRoute } from '#lib/routes/agent.ts';

export const handler = httpHandler(
  agentRoute('deleteFaq'),
  agentAuth,
  (input) => deleteAgentRecord('faq', input),
  {
    earlyRead: earlyWriteRead('faq'),
  },
);
