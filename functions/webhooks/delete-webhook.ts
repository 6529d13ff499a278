import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { webhookRoutes } from '#lib/routes/webhooks.ts';
import { assertMayUseWebhooks } from '#lib/webhooks/api.ts';
import { deleteWebhook } from '#lib/webhooks/store.ts';

/** Delete one subscription of the key; another key's is a 404. */
export const handler = httpHandler(webhookRoutes.deleteWebhook, agentAuth, async (input) => {
  await deleteWebhook(assertMayUseWebhooks(input.principal), input.params.webhook_id);
  return undefined;
});
