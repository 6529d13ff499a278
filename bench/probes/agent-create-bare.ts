import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { agentAuth } from '#lib/auth/agent-keys.ts';
import { HttpError } from '#lib/http/errors.ts';
import { withIdempotencyKey } from '#lib/http/idempotency/response-store.ts';
import { parseRequestPart } from '#lib/http/validation.ts';
import { createAgentRecord } from '#lib/records/agent/operations.ts';
import type { RecordFields } from '#lib/records/record-types.ts';
import { agentRoute } from '#lib/routes/agent.ts';

/**
 * Reference, not a function: createFaq's work with nothing of the pipeline around it (no middy, no
 * logger, no error envelope, no deadline), as agent-read-bare.ts is getFaq's. What an agent
 * create's requirements alone cost a cold start: the agent key check, zod validation of the path
 * and the body, the write (one transaction: the record, its change-log entry, the business's check
 * and the record count) and a JSON answer. The sample sends no Idempotency-Key, as the bench's
 * createFaq sample does not, but the module that honours one is loaded as createFaq loads it.
 */
const route = agentRoute('createFaq');
export const idempotency = withIdempotencyKey;

export const handler = async (event: APIGatewayProxyEventV2) => {
  try {
    const { params: paramsSchema, body: bodySchema } = route.request;
    if (!paramsSchema || !bodySchema) throw new Error('createFaq declares its path and its body');
    const params = parseRequestPart('path', paramsSchema, event.pathParameters);
    const body = parseRequestPart('body', bodySchema, JSON.parse(event.body ?? 'null')) as RecordFields;
    const principal = await agentAuth.authenticate(event.headers, { sourceIp: 'bench', shared: {} });
    const output = await createAgentRecord('faq', { params, body, principal });
    return { statusCode: 201, body: JSON.stringify({ data: output.data }) };
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return { statusCode: error.statusCode, body: JSON.stringify({ message: error.message }) };
  }
};
