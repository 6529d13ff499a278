import type { AgentPrincipal } from '#lib/auth/principal.ts';
import { ForbiddenError, ValidationError } from '#lib/http/errors.ts';
import { type WebhookSubscription, webhookView } from '#lib/webhooks/subscription.ts';

/**
 * What the webhook operations (functions/webhooks/) share: who may call them, how a secret is
 * shown and what range a replay may ask for (the deliveries list's cursor is in
 * deliveries-cursor.ts: only that function reads the cursor keys).
 */

/**
 * A webhook carries the events of every business its key may read, so managing one needs the
 * `read` scope; which webhooks it reaches is the store's business (its own only).
 */
export function assertMayUseWebhooks(agent: AgentPrincipal): AgentPrincipal {
  if (!agent.scopes.includes('read')) throw new ForbiddenError("This agent key lacks the 'read' scope");
  return agent;
}

/** The view of a webhook just made or rotated, with the secret that answer alone shows. */
export const viewWithSecret = (subscription: WebhookSubscription, secret: string) => ({
  ...webhookView(subscription),
  secret,
});

const DAY_MS = 24 * 60 * 60 * 1000;
/** A replay's `to` may be this far ahead of the service's clock (the caller's clock may run ahead). */
const CLOCK_SKEW_MS = 60_000;

/**
 * A replay's range, as ISO strings in UTC: `from` before `to`, `from` at most `maxAgeDays` ago (the
 * feed keeps no more), `to` not in the future. A 422 naming the field otherwise.
 */
export function replayRange(
  range: { from: string; to: string },
  maxAgeDays: number,
  now: Date = new Date(),
): { from: string; to: string } {
  const from = Date.parse(range.from);
  const to = Date.parse(range.to);
  const refuse = (field: 'from' | 'to', msg: string) =>
    new ValidationError(`Request validation failed: body.${field}: ${msg}`, [
      { loc: ['body', field], msg, type: 'value_error' },
    ]);
  if (from < now.getTime() - maxAgeDays * DAY_MS) {
    throw refuse('from', `must be at most ${maxAgeDays} days ago (the feed keeps no older events)`);
  }
  if (to > now.getTime() + CLOCK_SKEW_MS) throw refuse('to', 'must not be in the future');
  if (from >= to) throw refuse('to', 'must be after from');
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}
