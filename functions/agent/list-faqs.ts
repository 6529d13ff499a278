import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { earlyPage, listAgentRecords } from '#lib/records/agent/list.ts';
import { agentRoute } from '#lib/routes/agent.ts';

export const handler = httpHandler(
  agentRoute('listFaqs'),
  agentAuth,
  (input) => listAgentRecords('faq', input),
  {
    earlyRead: earlyPage('faq'),
  },
);
