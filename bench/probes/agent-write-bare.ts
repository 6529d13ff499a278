import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { agentAuth } from '#lib/auth/agent-keys.ts';
import { earlyWriteRead, patchAgentRecord } from '#lib/records/agent/operations.ts';
import { agentRoute } from '#lib/routes/agent.ts';
import { bareAnswer, bareBody, bareParams } from './bare-request.ts';

/**
 * Reference, not a function: updateFaq's work with nothing of the pipeline around it (no middy, no
 * logger, no error envelope, no deadline), as agent-read-bare.ts is getFaq's. What an agent
 * change's requirements alone cost a cold start: the agent key check, zod validation of the path
 * and the body, the record's read (one call with the key's lookup, as in updateFaq), the write
 * (one transaction: the record and its change-log entry) and a JSON answer.
 */
const route = agentRoute('updateFaq');
const readForWrite = earlyWriteRead('faq');

export const handler = (event: APIGatewayProxyEventV2) =>
  bareAnswer(200, async () => {
    const params = bareParams(route, event);
    const body = bareBody(route, event);
    const shared = {};
    const early = readForWrite({ params, query: undefined, headers: event.headers, shared });
    const principal = await agentAuth.authenticate(event.headers, { sourceIp: 'bench', shared });
    return patchAgentRecord('faq', { params, body, principal, early });
  });
