import { agentAuth } from '#lib/auth/agent-keys.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { REPLAY_MAX_AGE_DAYS, webhookRoutes } from '#lib/routes/webhooks.ts';
import { assertMayUseWebhooks, replayRange } from '#lib/webhooks/api.ts';
import { requestReplay } from '#lib/webhooks/replays.ts';
import { getWebhook } from '#lib/webhooks/store.ts';

/**
 * Record a replay of a time range for the subscription's delivery run (lib/webhooks/run.ts); the
 * sweep starts it within a minute. The subscription is the key's before the range is judged, so
 * another key's webhook is a 404 whatever the range.
 */
export const handler = httpHandler(webhookRoutes.replayWebhook, agentAuth, async (input) => {
  const subscription = await getWebhook(assertMayUseWebhooks(input.principal), input.params.webhook_id);
  const range = replayRange(input.body, REPLAY_MAX_AGE_DAYS);
  const replay = await requestReplay(subscription.webhook_id, range);
  return { data: { replay_id: replay.replay_id, from: replay.from, to: replay.to } };
});
