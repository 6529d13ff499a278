import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { agentAuth } from '#lib/auth/agent-keys.ts';
import { HttpError } from '#lib/http/errors.ts';
import { parseRequestPart } from '#lib/http/validation.ts';
import { earlyRecord, getAgentRecord } from '#lib/records/agent/operations.ts';
import { agentRoute } from '#lib/routes/agent.ts';

/**
 * Reference, not a function: getFaq's work with nothing of the pipeline around it (no middy, no
 * logger, no error envelope, no deadline). What the requirements alone cost a cold start: the
 * agent key check, zod validation of the path, the read (one call with the key's lookup, as in
 * getFaq) and a JSON answer. The bench measures it
 * against the floor with getFaq's event, beside getFaq itself (bench/run.ts).
 */
const route = agentRoute('getFaq');
const readRecord = earlyRecord('faq');

export const handler = async (event: APIGatewayProxyEventV2) => {
  try {
    const schema = route.request.params;
    if (!schema) throw new Error('getFaq declares its path parameters');
    const params = parseRequestPart('path', schema, event.pathParameters);
    // As getFaq: the record is read in one call with the key's lookup (lib/db/item-reader.ts).
    const shared = {};
    const early = readRecord({ params, query: undefined, headers: event.headers, shared });
    const principal = await agentAuth.authenticate(event.headers, { sourceIp: 'bench', shared });
    const output = await getAgentRecord('faq', { params, principal, early });
    return { statusCode: 200, body: JSON.stringify({ data: output.data }) };
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return { statusCode: error.statusCode, body: JSON.stringify({ message: error.message }) };
  }
};
