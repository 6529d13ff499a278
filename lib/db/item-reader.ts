import { GetCommand } from '@aws-sdk/lib-dynamodb';
import DataLoader from 'dataloader';
import { batchGetAll } from '#lib/db/batch-get.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import type { ItemKey } from '#lib/db/keys.ts';

type Item = Record<string, unknown>;

/**
 * Reads of single items by key. A request's reader (createItemReader) sends the reads its code
 * starts together as one call; `directReader` sends each as it comes.
 */
export interface ItemReader {
  /** The item, or undefined when there is none. Consistent when asked (or when sent with one that is). */
  get(key: ItemKey, options?: { consistent?: boolean }): Promise<Item | undefined>;
  /** The items found for these keys, in no particular order (missing ones are absent). */
  getMany(keys: ItemKey[], options?: { consistent?: boolean }): Promise<Item[]>;
}

/** Each read its own call: a GetItem, or a BatchGetItem for several keys (batch-get.ts). */
export const directReader: ItemReader = {
  get: (key, options = {}) => getItem(key, options.consistent ?? false),
  getMany: (keys, options = {}) => batchGetAll(keys, options),
};

interface ItemRead {
  key: ItemKey;
  consistent: boolean;
}

/**
 * A reader for one request: the reads started in the same turn of the event loop (DataLoader's
 * batch window) go out as one call, so that, for instance, an agent key's lookup and the record the
 * operation reads beside it (lib/http/early-read.ts) cost one request instead of two sent side by
 * side. One read alone stays a GetItem; several are one BatchGetItem (deduplicated, unprocessed
 * keys asked again: batch-get.ts), read consistently if any of them asked to be: a table's reads in
 * one BatchGetItem share one ConsistentRead. Results are never cached: each `get` reads afresh.
 */
export function createItemReader(): ItemReader {
  const loader = new DataLoader<ItemRead, Item | undefined>(readTogether, { cache: false });
  const get = (key: ItemKey, options: { consistent?: boolean } = {}) =>
    loader.load({ key, consistent: options.consistent ?? false });
  return {
    get,
    getMany: async (keys, options) =>
      (await Promise.all(keys.map((key) => get(key, options)))).filter((item) => item !== undefined),
  };
}

async function readTogether(reads: readonly ItemRead[]): Promise<(Item | undefined)[]> {
  const consistent = reads.some((read) => read.consistent);
  const [only] = reads;
  if (only && reads.length === 1) return [await getItem(only.key, consistent)];
  const found = await batchGetAll(
    reads.map((read) => read.key),
    { consistent },
  );
  const byKey = new Map(found.map((item) => [identity(item as unknown as ItemKey), item]));
  return reads.map((read) => byKey.get(identity(read.key)));
}

async function getItem(Key: ItemKey, consistent: boolean): Promise<Item | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key, ...(consistent ? { ConsistentRead: true } : {}) }),
  );
  return Item;
}

const readers = new WeakMap<object, ItemReader>();

/**
 * The reader of one request, found through an object the pipeline makes for it and hands to both
 * the operation's early read and the credential's check (lib/http/early-read.ts); without one,
 * `directReader`.
 */
export function readerFor(shared: object | undefined): ItemReader {
  if (!shared) return directReader;
  let reader = readers.get(shared);
  if (!reader) {
    reader = createItemReader();
    readers.set(shared, reader);
  }
  return reader;
}

const identity = (key: ItemKey) => `${key.pk}\u0000${key.sk}`;
