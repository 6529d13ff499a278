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
  // Libraries wrap SDK errors (Powertools Parameters' GetParameterError, for one): look at the
  // causes too, a few levels deep.
  for (let current = error, depth = 0; current instanceof Error && depth < 4; depth++) {
    const found = classify(current);
    if (found) return found;
    current = current.cause;
  }
  return undefined;
}

function classify(error: Error): ServiceUnavailableError | undefined {
  const code = (error as { code?: unknown }).code;
  if (THROTTLING_ERRORS.has(error.name)) {
    return new ServiceUnavailableError('The service is busy; retry shortly', 'throttled', 2);
  }
  if (
    error.name === 'TimeoutError' ||
    (typeof code === 'string' && UNREACHABLE_ERRORS.has(code)) ||
    // An AWS service's own failure (InternalServerError, ServiceUnavailable…), retries spent.
    (error as { $fault?: unknown }).$fault === 'server'
  ) {
    return new ServiceUnavailableError(
      'A dependency of the service is unavailable; retry shortly',
      'unreachable',
    );
  }
  return undefined;
}
