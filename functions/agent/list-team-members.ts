import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { earlyPage, listAgentRecords } from '#lib/records/agent/list.ts';
import { agentRoute } from '#lib/routes/agent.ts';

export const handler = httpHandler(
  agentRoute('listTeamMembers'),
  agentAuth,
  (input) => listAgentRecords('team_member', input),
  {
    earlyRead: earlyPage('team_member'),
  },
);
