import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { agentAuth } from '#lib/auth/agent-keys.ts';
import { HttpError } from '#lib/http/errors.ts';
import { parseRequestPart } from '#lib/http/validation.ts';
import { earlyWriteRead, patchAgentRecord } from '#lib/records/agent/operations.ts';
import type { RecordFields } from '#lib/records/record-types.ts';
import { agentRoute } from '#lib/routes/agent.ts';

/**
 * Reference, not a function: updateFaq's work with nothing of the pipeline around it (no middy, no
 * logger, no error envelope, no deadline), as agent-read-bare.ts is getFaq's. What an agent
 * change's requirements alone cost a cold start: the agent key check, zod validation of the path
 * and the body, the record's read (one call with the key's lookup, as in updateFaq), the write
 * (one transaction: the record and its change-log entry) and a JSON answer. The bench measures
 * it against the floor with updateFaq's event, beside updateFaq itself (bench/cold-section.ts).
 */
const route = agentRoute('updateFaq');
const readForWrite = earlyWriteRead('faq');

export const handler = async (event: APIGatewayProxyEventV2) => {
  try {
    const { params: paramsSchema, body: bodySchema } = route.request;
    if (!paramsSchema || !bodySchema) throw new Error('updateFaq declares its path and its body');
    const params = parseRequestPart('path', paramsSchema, event.pathParameters);
    const body = parseRequestPart('body', bodySchema, JSON.parse(event.body ?? 'null')) as RecordFields;
    const shared = {};
    const early = readForWrite({ params, query: undefined, headers: event.headers, shared });
    const principal = await agentAuth.authenticate(event.headers, { sourceIp: 'bench', shared });
    const output = await patchAgentRecord('faq', { params, body, principal, early });
    return { statusCode: 200, body: JSON.stringify({ data: output.data }) };
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return { statusCode: error.statusCode, body: JSON.stringify({ message: error.message }) };
  }
};
