import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { agentAuth } from '#lib/auth/agent-keys.ts';
import { earlyRecord, getAgentRecord } from '#lib/records/agent/operations.ts';
import { agentRoute } from '#lib/routes/agent.ts';
import { bareAnswer, bareParams } from './bare-request.ts';

/**
 * Reference, not a function: getFaq's work with nothing of the pipeline around it (no middy, no
 * logger, no error envelope, no deadline). What the requirements alone cost a cold start: the
 * agent key check, zod validation of the path, the read (one call with the key's lookup, as in
 * getFaq) and a JSON answer. The bench measures it against the floor with getFaq's event, beside
 * getFaq itself (bench/cold-section.ts, bench/requirement-probes.ts).
 */
const route = agentRoute('getFaq');
const readRecord = earlyRecord('faq');

export const handler = (event: APIGatewayProxyEventV2) =>
  bareAnswer(200, async () => {
    const params = bareParams(route, event);
    // As getFaq: the record is read in one call with the key's lookup (lib/db/item-reader.ts).
    const shared = {};
    const early = readRecord({ params, query: undefined, headers: event.headers, shared });
    const principal = await agentAuth.authenticate(event.headers, { sourceIp: 'bench', shared });
    return getAgentRecord('faq', { params, principal, early });
  });
