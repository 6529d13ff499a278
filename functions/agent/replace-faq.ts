import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { earlyWriteRead, replaceAgentRecord } from '#lib/records/agent/operations.ts';
import { agentRoute } from '#lib/routes/agent.ts';

export const handler = httpHandler(
  agentRoute('replaceFaq'),
  agentAuth,
  (input) => replaceAgentRecord('faq', input),
  {
    earlyRead: earlyWriteRead('faq'),
  },
);
