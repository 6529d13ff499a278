import { agentAuth } from '#lib/auth/agent-keys.ts';
import { withIdempotencyKey } from '#lib/http/idempotency/response-store.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { createAgentRecord } from '#lib/records/agent/operations.ts';
import { agentRoute } from '#lib/routes/agent.ts';

export const handler = httpHandler(
  agentRoute('createFaq'),
  agentAuth,
  (input) => createAgentRecord('faq', input),
  { idempotency: withIdempotencyKey },
);
