import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { webhookRoutes } from '#lib/routes/webhooks.ts';
import { assertMayUseWebhooks } from '#lib/webhooks/api.ts';
import { deliveryView } from '#lib/webhooks/delivery-view.ts';
import { redeliver } from '#lib/webhooks/one-off.ts';
import { getWebhook } from '#lib/webhooks/store.ts';

/** One logged delivery's event posted again now (same webhook-id); the answer is the new attempt. */
export const handler = httpHandler(webhookRoutes.retryWebhookDelivery, agentAuth, async (input) => {
  const subscription = await getWebhook(assertMayUseWebhooks(input.principal), input.params.webhook_id);
  return { data: deliveryView(await redeliver(subscription, input.params.delivery_id)) };
});
