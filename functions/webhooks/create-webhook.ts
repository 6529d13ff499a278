import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { webhookRoutes } from '#lib/routes/webhooks.ts';
import { assertMayUseWebhooks, viewWithSecret } from '#lib/webhooks/api.ts';
import { createWebhook } from '#lib/webhooks/store.ts';

/** A new subscription of the key; its secret is in this answer and nowhere else. */
export const handler = httpHandler(webhookRoutes.createWebhook, agentAuth, async (input) => {
  const agent = assertMayUseWebhooks(input.principal);
  const { subscription, secret } = await createWebhook(agent, input.body);
  return { data: viewWithSecret(subscription, secret) };
});
