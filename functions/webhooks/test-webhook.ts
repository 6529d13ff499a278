import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { webhookRoutes } from '#lib/routes/webhooks.ts';
import { assertMayUseWebhooks } from '#lib/webhooks/api.ts';
import { deliveryView } from '#lib/webhooks/delivery-view.ts';
import { sendPing } from '#lib/webhooks/one-off.ts';
import { getWebhook } from '#lib/webhooks/store.ts';

/**
 * A ping posted now, while the request waits; the answer is the attempt, delivered or failed (a
 * failed ping is still a 200: the operation did what it was asked, the endpoint did not).
 */
export const handler = httpHandler(webhookRoutes.testWebhook, agentAuth, async (input) => {
  const subscription = await getWebhook(assertMayUseWebhooks(input.principal), input.params.webhook_id);
  return { data: deliveryView(await sendPing(subscription)) };
});
