/**
 * JSON-RPC batches on /mcp. MCP allowed them in one revision only, 2025-03-26 (2025-06-18 took
 * them out, and every later transport wants one message per POST), so a batch is served for that
 * revision and refused for the others. A served batch is capped in size and its requests run a
 * few at a time, so that one POST cannot start a hundred tool calls at once against the table.
 */

/** The one revision whose clients may send a batch; a POST without a version header is taken as it. */
export const BATCH_PROTOCOL_VERSION = '2025-03-26';

/** The most messages one batch may carry (the MCP SDK's limit, which clients were written to). */
export const MAX_BATCH_SIZE = 100;

/** The requests of one batch answered at the same time. */
export const BATCH_CONCURRENCY = 4;

/** Whether a POST naming `headerVersion` (undefined: no header) may carry a batch. */
export const acceptsBatch = (headerVersion: string | undefined) =>
  (headerVersion ?? BATCH_PROTOCOL_VERSION) === BATCH_PROTOCOL_VERSION;

/** `run` over every item, at most `limit` at a time; the results in the items' order. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, run: (item: T) => Promise<R>) {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await run(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
