/**
 * How long before the function's own timeout the pipeline answers by itself. Past the timeout,
 * API Gateway would answer a bare `{"message":"Service Unavailable"}` with no retry-after and no
 * request id; answering first keeps every failure in the API's error shape.
 */
export const DEADLINE_MARGIN_MS = 500;

interface LambdaLikeContext {
  getRemainingTimeInMillis?: () => number;
}

/**
 * Run `handler` (the whole middleware chain: authentication, body parsing, the operation) against
 * the function's deadline. Whichever comes first wins: the handler's result, `onTimeout` once the
 * remaining time drops to the margin, or `onFailure` if the handler rejects (an error no
 * middleware turned into a response). The work still under way is not cancelled; writes are
 * single DynamoDB calls or transactions, so it lands whole or not at all.
 */
export function answerBeforeDeadline<E, C extends LambdaLikeContext, R>(
  handler: (event: E, context: C) => Promise<R>,
  onTimeout: (event: E) => R,
  onFailure: (event: E, error: unknown) => R,
): (event: E, context: C) => Promise<R> {
  return async (event, context) => {
    const work = handler(event, context).catch((error: unknown) => onFailure(event, error));
    const remaining = context.getRemainingTimeInMillis?.();
    if (remaining === undefined) return work;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<R>((resolve) => {
      timer = setTimeout(() => resolve(onTimeout(event)), Math.max(0, remaining - DEADLINE_MARGIN_MS));
    });
    try {
      return await Promise.race([work, deadline]);
    } finally {
      clearTimeout(timer);
    }
  };
}
