import type { HttpError } from '#lib/http/errors.ts';

/** SuccessResponse<T> of DESIGN §4. */
export function successBody(requestId: string, data: unknown, meta?: Record<string, unknown>) {
  return { request_id: requestId, success: true as const, data, ...(meta ? { meta } : {}) };
}

/** ErrorResponse of DESIGN §4. */
export function errorBody(requestId: string, error: HttpError) {
  return {
    request_id: requestId,
    success: false as const,
    error: {
      code: error.code,
      message: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
    },
  };
}
