import { errorBody } from '#lib/http/envelope.ts';
import { type HttpError, OAuthError, ValidationError, type ValidationIssue } from '#lib/http/errors.ts';
import type { RouteDefinition } from '#lib/http/route.ts';

type ErrorFormat = NonNullable<RouteDefinition['errorFormat']>;

/** The OAuth `error` code for a failure that was not raised as an OAuthError. */
function oauthCodeFor(error: HttpError): string {
  if (error.statusCode === 401) return 'invalid_client';
  if (error.statusCode === 403) return 'access_denied';
  if (error.statusCode === 404) return 'not_found';
  if (error.statusCode === 429 || error.statusCode === 503) return 'temporarily_unavailable';
  if (error.statusCode >= 500) return 'server_error';
  return 'invalid_request';
}

/** Status and body of a failed request in the route's error format. */
export function errorPayload(
  format: ErrorFormat,
  requestId: string,
  error: HttpError,
): { statusCode: number; body: unknown } {
  if (format === 'oauth') {
    // RFC 6749 §5.2: a malformed request is a 400 invalid_request, whatever the schema said.
    const statusCode = error instanceof ValidationError ? 400 : error.statusCode;
    const code = error instanceof OAuthError ? error.oauthCode : oauthCodeFor(error);
    return { statusCode, body: { error: code, error_description: error.message } };
  }
  if (format === 'http-validation' && error instanceof ValidationError) {
    return { statusCode: 422, body: { detail: error.details as ValidationIssue[] } };
  }
  return { statusCode: error.statusCode, body: errorBody(requestId, error) };
}
