import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { webhookRoutes } from '#lib/routes/webhooks.ts';
import { assertMayUseWebhooks } from '#lib/webhooks/api.ts';
import { listWebhooks } from '#lib/webhooks/store.ts';
import { webhookView } from '#lib/webhooks/subscription.ts';

/** Every subscription of the key (at most 10: one page), oldest first, without secrets. */
export const handler = httpHandler(webhookRoutes.listWebhooks, agentAuth, async (input) => {
  const subscriptions = await listWebhooks(assertMayUseWebhooks(input.principal));
  return { data: subscriptions.map(webhookView) };
});
