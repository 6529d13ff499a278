import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { agentAuth } from '#lib/auth/agent-keys.ts';
import { withIdempotencyKey } from '#lib/http/idempotency/response-store.ts';
import { createAgentRecord } from '#lib/records/agent/operations.ts';
import { agentRoute } from '#lib/routes/agent.ts';
import { bareAnswer, bareBody, bareParams } from './bare-request.ts';

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

export const handler = (event: APIGatewayProxyEventV2) =>
  bareAnswer(201, async () => {
    const params = bareParams(route, event);
    const body = bareBody(route, event);
    const principal = await agentAuth.authenticate(event.headers, { sourceIp: 'bench', shared: {} });
    return createAgentRecord('faq', { params, body, principal });
  });
