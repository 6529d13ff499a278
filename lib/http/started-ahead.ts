/**
 * A read started before the request is known to need it (beside a read that may still refuse the
 * request), so that it costs no round trip of its own. Its failure reaches whoever awaits it, and
 * is never an unhandled rejection when the request is refused first and nobody does.
 */
export function startedAhead<T>(read: Promise<T>): Promise<T> {
  read.catch(() => undefined);
  return read;
}
