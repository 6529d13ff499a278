import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Signing (docs/webhooks.md, 'Verifying a delivery'), as the Standard Webhooks specification
 * says, through its reference library so that any receiver's library verifies what we send:
 * `webhook-id` (the event's id), `webhook-timestamp` (seconds) and `webhook-signature`, one
 * `v1,<base64 HMAC-SHA256 of id.timestamp.body>` per secret that signs, space-separated (more than
 * one while a rotated secret still signs).
 */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

export function signedHeaders(
  message: { id: string; body: string },
  secrets: readonly string[],
  now: Date,
): Record<string, string> {
  if (secrets.length === 0) throw new Error('A delivery needs at least one signing secret');
  return {
    'content-type': 'application/json',
    'user-agent': 'business-platform-webhooks/1',
    'webhook-id': message.id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': secrets
      .map((secret) => new Webhook(secret).sign(message.id, now, message.body))
      .join(' '),
  };
}
