import { logger } from '#lib/observability/logger.ts';
import { SIGNAL_FIELDS } from '#lib/observability/signal-fields.ts';

/**
 * Events of the authorization server an operator counts and alarms on: each is one log line
 * whose `security_event` field names it (a CloudWatch metric filter counts them by that field),
 * with the ids needed to follow it up. Never a token, a code or a secret. Routine events are info
 * lines, the others warn lines.
 */
export type SecurityEventName =
  /** A client exchanged an authorization code: a new grant (routine). */
  | 'grant_issued'
  /** A refresh token was used after its grace period: copied, so its whole grant ended. */
  | 'refresh_token_reused'
  /** A spent authorization code was presented again by its client: what it issued ended. */
  | 'code_reused'
  /** An operator revoked a registered client; its grants ended. */
  | 'client_revoked'
  /** An operator blocked a metadata-document client by URL; its grants ended. */
  | 'client_blocked'
  /** An operator lifted a block. */
  | 'client_unblocked'
  /** A person disconnected an assistant (ended one of their grants). */
  | 'grant_ended_by_user'
  /** An operator ended a person's grants (their account was disabled or deleted). */
  | 'grant_ended_by_operator'
  /** A refresh found the approving account disabled in the user pool: its grant ended. */
  | 'grant_ended_account_disabled'
  /** A refresh found no approving account in the user pool any more (deleted): its grant ended. */
  | 'grant_ended_account_deleted'
  /** A client revoked a token at /oauth/revoke, ending its grant. */
  | 'grant_revoked_by_client';

export interface SecurityEventFields {
  grant_id?: string | undefined;
  client_id?: string | undefined;
  user_id?: string | undefined;
  /** How many grants the event ended, when it ended several. */
  grants_ended?: number | undefined;
}

const ROUTINE: ReadonlySet<SecurityEventName> = new Set(['grant_issued']);

export function securityEvent(name: SecurityEventName, fields: SecurityEventFields): void {
  const line = { [SIGNAL_FIELDS.securityEvent]: name, ...fields };
  if (ROUTINE.has(name)) logger.info(`OAuth event: ${name}`, line);
  else logger.warn(`OAuth security event: ${name}`, line);
}
