/**
 * The structured log fields that CloudWatch metric filters count (infra/log-signals.ts): a line
 * carrying one of them is one data point of the service's own metrics, at no run-time cost. The
 * code that logs and the filters that count share these names, so neither can drift.
 */
export const SIGNAL_FIELDS = {
  /** On every 503 answer, in the API or in a tool result: why (UnavailableCause). */
  unavailableCause: 'unavailable_cause',
  /** OAuth events: grants issued and ended, reuse revocations (lib/oauth/security-events.ts). */
  securityEvent: 'security_event',
  /** A changeset applied or reverted. */
  changesetEvent: 'changeset_event',
  /** A request refused because of its Idempotency-Key: still in progress, or reused with another body. */
  idempotencyConflict: 'idempotency_conflict',
  /** A webhook delivery's outcome: delivered, failed, or the subscription disabled (lib/webhooks). */
  webhookDelivery: 'webhook_delivery',
} as const;
