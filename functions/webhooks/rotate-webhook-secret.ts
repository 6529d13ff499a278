import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { webhookRoutes } from '#lib/routes/webhooks.ts';
import { assertMayUseWebhooks, viewWithSecret } from '#lib/webhooks/api.ts';
import { rotateWebhookSecret } from '#lib/webhooks/store.ts';

/** A new signing secret, shown in this answer only; the one it replaces signs beside it for 24 h. */
export const handler = httpHandler(webhookRoutes.rotateWebhookSecret, agentAuth, async (input) => {
  const { subscription, secret } = await rotateWebhookSecret(
    assertMayUseWebhooks(input.principal),
    input.params.webhook_id,
  );
  return { data: viewWithSecret(subscription, secret) };
});
