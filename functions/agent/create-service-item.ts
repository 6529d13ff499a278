import { agentAuth } from '#lib/auth/agent-keys.ts';
import { withIdempotencyKey } from '#lib/http/idempotency/response-store.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { createAgentRecord } from '#lib/records/agent/operations.ts';
import { agentRoute } from '#lib/routes/agent.ts';

export const handler = httpHandler(
  agentRoute('createServiceItem'),
  agentAuth,
  (input) => createAgentRecord('service_item', input),
  { idempotency: withIdempotencyKey },
);
