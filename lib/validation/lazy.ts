/**
 * A memoised thunk: `build` runs on the first call only. Schemas are built this way so that a
 * function constructs, at its cold start, only the schemas it validates with.
 */
export function once<T>(build: () => T): () => T {
  let built = false;
  let value: T;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value;
  };
}
