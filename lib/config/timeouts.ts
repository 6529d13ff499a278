/**
 * How long anything may take. API Gateway gives an integration 30 s; a function that outlives it is
 * a bare gateway 503. So every function stops well before, and every AWS SDK client gives up
 * (connection + request timeouts, a few attempts) before its function's time is spent: a slow
 * dependency becomes our own 503 ErrorResponse with `retry-after`, and the pipeline's deadline
 * (lib/http/deadline.ts) catches whatever is left. CDK, the local harness and the clients all read
 * these numbers, and a unit test checks that they fit together.
 */

/** Function timeout when a route names none. */
export const DEFAULT_FUNCTION_TIMEOUT_SECONDS = 15;
/** The longest any function may run (edits apply/revert, imports, the tool server). */
export const MAX_FUNCTION_TIMEOUT_SECONDS = 28;
/** API Gateway HTTP API's integration timeout (a hard limit). */
export const GATEWAY_TIMEOUT_SECONDS = 30;

export interface ClientTimeouts {
  /** Milliseconds to open the TCP/TLS connection. */
  connectionTimeout: number;
  /** Milliseconds a request's socket may stay silent. */
  requestTimeout: number;
  /** Attempts including the first (the SDK's standard retry mode, with jittered backoff). */
  maxAttempts: number;
}

/**
 * Per dependency. DynamoDB, Secrets Manager and Cognito answer in milliseconds; S3 moves up to 4.4 MB.
 * The worst case of one call is attempts × (connect + request) plus the backoff between attempts.
 */
export const CLIENT_TIMEOUTS = {
  dynamodb: { connectionTimeout: 1_000, requestTimeout: 3_000, maxAttempts: 3 },
  s3: { connectionTimeout: 1_000, requestTimeout: 5_000, maxAttempts: 2 },
  ses: { connectionTimeout: 1_000, requestTimeout: 5_000, maxAttempts: 2 },
  secretsManager: { connectionTimeout: 1_000, requestTimeout: 3_000, maxAttempts: 3 },
  // The user pool's AdminGetUser, asked before a refresh (lib/auth/account-status.ts).
  cognito: { connectionTimeout: 1_000, requestTimeout: 3_000, maxAttempts: 3 },
} as const satisfies Record<string, ClientTimeouts>;

/**
 * Upper bound of the standard retry mode's jittered backoff before attempt n (n ≥ 2): its base is
 * 100 ms, or 500 ms after a throttling error (the larger one here), doubling per attempt.
 */
const backoffBeforeAttemptMs = (attempt: number) => 500 * 2 ** (attempt - 2);

/** The longest one SDK call with these settings can take before it gives up. */
export function worstCaseCallMs({ connectionTimeout, requestTimeout, maxAttempts }: ClientTimeouts): number {
  let total = 0;
  for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
    total += connectionTimeout + requestTimeout + (attempt > 1 ? backoffBeforeAttemptMs(attempt) : 0);
  }
  return total;
}

/** The SDK client options for one dependency: `{...sdkClientOptions('dynamodb')}`. */
export function sdkClientOptions(dependency: keyof typeof CLIENT_TIMEOUTS) {
  const { connectionTimeout, requestTimeout, maxAttempts } = CLIENT_TIMEOUTS[dependency];
  // Without throwOnRequestTimeout the SDK only logs a warning when requestTimeout passes and goes on
  // waiting, so a stalled dependency would hold the call until the function's deadline.
  return { maxAttempts, requestHandler: { connectionTimeout, requestTimeout, throwOnRequestTimeout: true } };
}
