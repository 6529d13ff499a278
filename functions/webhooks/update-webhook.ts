import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { webhookRoutes } from '#lib/routes/webhooks.ts';
import { assertMayUseWebhooks } from '#lib/webhooks/api.ts';
import { updateWebhook } from '#lib/webhooks/store.ts';
import { webhookView } from '#lib/webhooks/subscription.ts';

/** Change, pause or resume one subscription of the key (a new URL is checked as at creation). */
export const handler = httpHandler(webhookRoutes.updateWebhook, agentAuth, async (input) => {
  const subscription = await updateWebhook(
    assertMayUseWebhooks(input.principal),
    input.params.webhook_id,
    input.body,
  );
  return { data: webhookView(subscription) };
});
