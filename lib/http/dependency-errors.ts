import { ServiceUnavailableError } from '#lib/http/errors.ts';

/** Names the AWS SDK gives to throttling and capacity errors once its own retries are spent. */
const THROTTLING_ERRORS = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'Throttling',
  'SlowDown',
]);

/** Node's socket errors and the SDK's timeouts: the dependency could not be reached. */
const UNREACHABLE_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/**
 * Classify an error thrown by an AWS SDK call. Returns a 503 for throttling and unreachable
 * dependencies (the caller may retry), or undefined when the error means something else.
 */
export function asDependencyUnavailable(error: unknown): ServiceUnavailableError | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  const causeCode = (error.cause as { code?: unknown } | undefined)?.code;
  if (THROTTLING_ERRORS.has(error.name)) {
    return new ServiceUnavailableError('The service is busy; retry shortly', 2);
  }
  if (
    error.name === 'TimeoutError' ||
    (typeof code === 'string' && UNREACHABLE_ERRORS.has(code)) ||
    (typeof causeCode === 'string' && UNREACHABLE_ERRORS.has(causeCode))
  ) {
    return new ServiceUnavailableError();
  }
  return undefined;
}
