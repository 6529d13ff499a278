import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { webhookRoutes } from '#lib/routes/webhooks.ts';
import { assertMayUseWebhooks } from '#lib/webhooks/api.ts';
import { listDeliveries } from '#lib/webhooks/deliveries.ts';
import { deliveriesBefore, deliveriesCursor } from '#lib/webhooks/deliveries-cursor.ts';
import { deliveryView } from '#lib/webhooks/delivery-view.ts';
import { getWebhook } from '#lib/webhooks/store.ts';

/** A page of one subscription's attempts, newest first; the subscription must be the key's. */
export const handler = httpHandler(webhookRoutes.listWebhookDeliveries, agentAuth, async (input) => {
  const subscription = await getWebhook(assertMayUseWebhooks(input.principal), input.params.webhook_id);
  const webhookId = subscription.webhook_id;
  const before = await deliveriesBefore(webhookId, input.query.cursor);
  const page = await listDeliveries(webhookId, { limit: input.query.limit, before });
  return {
    data: page.deliveries.map(deliveryView),
    meta: { next_cursor: await deliveriesCursor(webhookId, page.next) },
  };
});
