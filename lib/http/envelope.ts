import type { HttpError } from '#lib/http/errors.ts';

/** SuccessResponse<T>: the envelope of success answers (docs/interface.md, "Envelopes"). */
export function successBody(requestId: string, data: unknown, meta?: Record<string, unknown>) {
  return { request_id: requestId, success: true as const, data, ...(meta ? { meta } : {}) };
}

/** ErrorResponse: the envelope of error answers (docs/interface.md, "Envelopes"). */
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
