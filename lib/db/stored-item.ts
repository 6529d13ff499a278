import { once } from '#lib/validation/lazy.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * The one way an item read from the table becomes a domain value. Each kind of stored item names
 * itself and gives a zod schema of its attributes, typed against its domain type, so the compiler
 * holds the two together; the schema is built on the first read (a function builds only the
 * schemas of the items it reads). Reading parses the item once: attributes the schema does not
 * name (pk, sk, gsi1pk, gsi1sk, TTL epochs, hidden attributes) are dropped, so keys never leave
 * the storage layer, and an item that does not match (an older shape, a hand edit, a bug in a
 * writer) throws CorruptStoredItemError naming its kind and what is wrong, instead of flowing on
 * as a value its type lies about.
 *
 * Only what the service itself stored reaches this parse, never a caller's input, so the error is
 * no 4xx: the request fails with a 500 and the logged error says which kind of item and which
 * attributes. The message names attributes, not values (keys may hold e-mail addresses).
 */
export interface StoredItemKind<T> {
  readonly kind: string;
  /** The item as its domain type, without its keys; CorruptStoredItemError when it does not match. */
  fromItem(item: Record<string, unknown>): T;
}

export class CorruptStoredItemError extends Error {
  override readonly name = 'CorruptStoredItemError';

  constructor(
    readonly kind: string,
    readonly problems: string[],
  ) {
    super(`A stored ${kind} item does not have the expected shape: ${problems.join('; ')}`);
  }
}

/** Declare a kind of stored item: its name (as errors say it) and its schema, built on first use. */
export function storedItem<T>(kind: string, schema: () => z.ZodType<T>): StoredItemKind<T> {
  const built = once(schema);
  return {
    kind,
    fromItem(item) {
      const result = z.safeParse(built(), item);
      if (result.success) return result.data;
      throw new CorruptStoredItemError(
        kind,
        result.error.issues.map((issue) => `${issue.path.join('.') || '(item)'}: ${issue.message}`),
      );
    },
  };
}
