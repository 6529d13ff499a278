import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { webhookRoutes } from '#lib/routes/webhooks.ts';
import { assertMayUseWebhooks } from '#lib/webhooks/api.ts';
import { getWebhook } from '#lib/webhooks/store.ts';
import { webhookView } from '#lib/webhooks/subscription.ts';

/** One subscription of the key; another key's is a 404. */
export const handler = httpHandler(webhookRoutes.getWebhook, agentAuth, async (input) => {
  const subscription = await getWebhook(assertMayUseWebhooks(input.principal), input.params.webhook_id);
  return { data: webhookView(subscription) };
});
