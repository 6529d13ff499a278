/**
 * The one error hierarchy of the service. Domain code throws these; the pipeline turns them into
 * `ErrorResponse` bodies. Anything that is not an HttpError becomes a plain 500 whose
 * message never leaves the logs.
 */
export type ErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'VERSION_CONFLICT'
  | 'GONE'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'VALIDATION_ERROR'
  | 'RATE_LIMITED'
  | 'INTERNAL'
  | 'SERVICE_UNAVAILABLE';

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends HttpError {
  constructor(message: string) {
    super(400, 'BAD_REQUEST', message);
  }
}

export class UnauthorizedError extends HttpError {
  /** `challenge` becomes the WWW-Authenticate header, as RFC 9110 requires on a 401. */
  constructor(message: string, challenge: string) {
    super(401, 'UNAUTHORIZED', message, undefined, { 'www-authenticate': challenge });
  }
}

export class ForbiddenError extends HttpError {
  constructor(message = 'You do not have access to this resource') {
    super(403, 'FORBIDDEN', message);
  }
}

export class NotFoundError extends HttpError {
  constructor(message: string) {
    super(404, 'NOT_FOUND', message);
  }
}

export class ConflictError extends HttpError {
  constructor(message: string, details?: unknown) {
    super(409, 'CONFLICT', message, details);
  }
}

export class GoneError extends HttpError {
  constructor(message: string) {
    super(410, 'GONE', message);
  }
}

export class PayloadTooLargeError extends HttpError {
  constructor(message: string) {
    super(413, 'PAYLOAD_TOO_LARGE', message);
  }
}

export class UnsupportedMediaTypeError extends HttpError {
  constructor(message: string) {
    super(415, 'UNSUPPORTED_MEDIA_TYPE', message);
  }
}

export class ValidationError extends HttpError {
  constructor(message: string, issues: ValidationIssue[]) {
    super(422, 'VALIDATION_ERROR', message, issues);
  }
}

/**
 * Why a request got a 503, logged with it as `unavailable_cause` so that operators count 503s by
 * cause (a metric filter on the function logs):
 * - timeout: the function's deadline came first (lib/http/deadline.ts);
 * - throttled: an AWS service throttled us past the SDK's retries (DynamoDB capacity, mostly);
 * - unreachable: an AWS service failed or could not be reached;
 * - contention: concurrent requests changed the same item and retries ran out;
 * - identity_provider: the console issuer's JWKS could not be fetched;
 * - token_keys: the OAuth server's published keys could not be read;
 * - mail: SES did not take an e-mail;
 * - external_photo: a photo's external host failed;
 * - account_directory: the user pool did not say whether a person's account is still active.
 */
export type UnavailableCause =
  | 'timeout'
  | 'throttled'
  | 'unreachable'
  | 'contention'
  | 'identity_provider'
  | 'token_keys'
  | 'mail'
  | 'external_photo'
  | 'account_directory';

export class ServiceUnavailableError extends HttpError {
  constructor(
    message: string,
    readonly unavailableCause: UnavailableCause,
    retryAfterSeconds = 1,
  ) {
    super(503, 'SERVICE_UNAVAILABLE', message, undefined, { 'retry-after': String(retryAfterSeconds) });
  }
}

/**
 * An OAuth protocol error (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 7009): `oauthCode` is the `error`
 * value a client acts on, e.g. invalid_grant. Routes with `errorFormat: 'oauth'` write it as
 * `{error, error_description}`.
 */
export class OAuthError extends HttpError {
  constructor(
    readonly oauthCode: string,
    description: string,
    statusCode = 400,
    headers: Record<string, string> = {},
  ) {
    super(
      statusCode,
      statusCode >= 500 ? 'SERVICE_UNAVAILABLE' : 'BAD_REQUEST',
      description,
      undefined,
      headers,
    );
  }
}

export class RateLimitedError extends HttpError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, 'RATE_LIMITED', message, undefined, { 'retry-after': String(retryAfterSeconds) });
  }
}
