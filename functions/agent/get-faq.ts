import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { earlyRecord, getAgentRecord } from '#lib/records/agent/operations.ts';
import { agentRoute } from '#lib/routes/agent.ts';

export const handler = httpHandler(agentRoute('getFaq'), agentAuth, (input) => getAgentRecord('faq', input), {
  earlyRead: earlyRecord('faq'),
});
