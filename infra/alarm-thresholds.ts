/**
 * When the stage's alarms page someone (infra/alarms.ts, infra/function-alarms.ts): each threshold
 * with why it is where it is. Tests and the docs read them from here.
 */
/** A 5xx share above this (percent of answers, two 5-minute periods running) pages someone. */
export const API_5XX_PERCENT_THRESHOLD = 5;
/** Below this many requests in 5 minutes a 5xx share means little: a stray error at night does not page. */
export const API_MIN_REQUESTS = 20;
/** p99 latency of an API above this, three 5-minute periods running. */
export const API_P99_LATENCY_MS = 5_000;
/** 401s of one API in 5 minutes, twice running: a broken client, or someone trying stolen tokens. */
export const UNAUTHORIZED_BURST = 100;
/** Reuse revocations (refresh tokens, codes) in an hour: one is a leak handled; several are a pattern. */
export const REUSE_REVOCATIONS_PER_HOUR = 3;
/** DynamoDB throttle events or system errors on the table in 5 minutes, twice running. */
export const TABLE_PROBLEMS_THRESHOLD = 10;
/** Errors of one Cognito trigger in 15 minutes: sign-ups or sign-ins are failing. */
export const TRIGGER_ERRORS_THRESHOLD = 3;
/** Throttled invocations of any function of the account in 5 minutes, twice running. */
export const LAMBDA_THROTTLES_THRESHOLD = 10;
/** The oldest stream record the publisher has not yet published, above this, five minutes running. */
export const EVENTS_ITERATOR_AGE_MS = 60_000;
/** Failed invocations of the publisher in 15 minutes (a crash, a refused call), as for the triggers. */
export const EVENTS_PUBLISHER_ERRORS_THRESHOLD = 3;
/**
 * Failed webhook deliveries in 15 minutes, all subscriptions together. One endpoint that is down
 * fails at most about 3 times in 15 minutes (its first attempt, then retries after 1 and 5
 * minutes: lib/webhooks/backoff.ts; new events do not retry it sooner), and an agent's endpoint
 * being down is the agent's to fix: 10 is several endpoints failing at once, which looks like
 * ours (outbound network, DNS, signing) or a receiver many agents share.
 */
export const WEBHOOK_FAILURES_THRESHOLD = 10;
/** Failed invocations of DeliverWebhooks or SweepWebhooks in 15 minutes, as for the publisher. */
export const WEBHOOK_FUNCTION_ERRORS_THRESHOLD = 3;
/** The stage's bounces and complaints as a percentage of its sends in a day… */
export const MAIL_PROBLEM_PERCENT_THRESHOLD = 5;
/** …once it sent this many (fewer, and one mistyped address would page). */
export const MAIL_MIN_SENDS = 20;
/**
 * The account's SES reputation, alarmed a step before SES puts sending under review (a 5% bounce
 * rate, a 0.1% complaint rate), so there is time to act.
 */
export const SES_BOUNCE_RATE_THRESHOLD = 0.04;
export const SES_COMPLAINT_RATE_THRESHOLD = 0.0008;
