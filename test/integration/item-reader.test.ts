import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dynamo, dynamoClient, tableName } from '#lib/db/client.ts';
import { createItemReader, directReader, readerFor } from '#lib/db/item-reader.ts';
import type { ItemKey } from '#lib/db/keys.ts';
import { attachUsageCounter, countDynamoUsage } from '../../infra/local/dynamodb-usage.ts';

attachUsageCounter(dynamoClient);

/** The input of every call this file's client sends, while `capture` is on. */
const sent: { operation: string; input: Record<string, unknown> }[] = [];
dynamoClient.middlewareStack.add(
  (next, context) => async (args) => {
    sent.push({ operation: String(context.commandName), input: args.input as Record<string, unknown> });
    return next(args);
  },
  { step: 'initialize', name: 'itemReaderTestInputs' },
);

describe('item reader: reads started together go out as one call', () => {
  const partition = `ITEM_READER_TEST#${randomUUID()}`;
  const key = (name: string): ItemKey => ({ pk: partition, sk: name });
  const item = (name: string) => ({ ...key(name), name });

  beforeAll(async () => {
    for (const name of ['a', 'b', 'c'])
      await dynamo.send(new PutCommand({ TableName: tableName, Item: item(name) }));
  });
  afterEach(() => {
    sent.length = 0;
  });

  it('sends reads of the same turn as one BatchGetItem, each answered with its own item', async () => {
    const { result, usage } = await countDynamoUsage(async () => {
      const reader = createItemReader();
      return Promise.all([reader.get(key('a')), reader.get(key('missing')), reader.get(key('b'))]);
    });

    expect(result).toEqual([item('a'), undefined, item('b')]);
    expect(usage.operations).toEqual(['BatchGetItem']);
    expect(usage.roundTrips).toBe(1);
  });

  it('reads the whole call consistently when one of its reads asks to be', async () => {
    const reader = createItemReader();
    await Promise.all([reader.get(key('a')), reader.get(key('b'), { consistent: true })]);
    const eventual = createItemReader();
    await Promise.all([eventual.get(key('a')), eventual.get(key('b'))]);

    const [mixed, plain] = sent.map(
      ({ input }) => input.RequestItems as Record<string, { ConsistentRead?: boolean }>,
    );
    expect(mixed?.[tableName]?.ConsistentRead).toBe(true);
    expect(plain?.[tableName]?.ConsistentRead).toBeUndefined();
  });

  it('keeps a read alone a GetItem, with the consistency it asked for', async () => {
    const reader = createItemReader();
    expect(await reader.get(key('c'), { consistent: true })).toEqual(item('c'));
    expect(await reader.get(key('c'))).toEqual(item('c'));

    expect(sent.map(({ operation }) => operation)).toEqual(['GetItemCommand', 'GetItemCommand']);
    expect(sent.map(({ input }) => input.ConsistentRead)).toEqual([true, undefined]);
  });

  it('asks DynamoDB for a key once when it is read twice in the same call, and answers both', async () => {
    const reader = createItemReader();
    const [first, second, other] = await Promise.all([
      reader.get(key('a')),
      reader.get(key('a')),
      reader.get(key('b')),
    ]);

    expect([first, second, other]).toEqual([item('a'), item('a'), item('b')]);
    const requested = sent[0]?.input.RequestItems as Record<string, { Keys: ItemKey[] }> | undefined;
    const keys = requested?.[tableName]?.Keys;
    expect(keys).toEqual([key('a'), key('b')]);
  });

  it('reads again for a read started after the previous call went out (nothing is cached)', async () => {
    const { usage } = await countDynamoUsage(async () => {
      const reader = createItemReader();
      await reader.get(key('a'));
      await reader.get(key('a'));
    });

    expect(usage.operations).toEqual(['GetItem', 'GetItem']);
    expect(usage.roundTrips).toBe(2);
  });

  it('getMany answers the items found, in one call with the reads beside it', async () => {
    const { result, usage } = await countDynamoUsage(async () => {
      const reader = createItemReader();
      return Promise.all([reader.getMany([key('a'), key('missing'), key('c')]), reader.get(key('b'))]);
    });

    expect(result[0]).toEqual(expect.arrayContaining([item('a'), item('c')]));
    expect(result[0]).toHaveLength(2);
    expect(result[1]).toEqual(item('b'));
    expect(usage.operations).toEqual(['BatchGetItem']);
  });

  it('fails every read of a call that fails, so none of them answers with what it did not read', async () => {
    const reader = createItemReader();
    const results = await Promise.allSettled([
      reader.get(key('a')),
      // DynamoDB refuses an empty string as a key attribute: the whole call is refused.
      reader.get({ pk: '', sk: 'x' }),
    ]);

    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
  });

  it('finds one reader per request object, and none without one', () => {
    const request = {};
    expect(readerFor(request)).toBe(readerFor(request));
    expect(readerFor({})).not.toBe(readerFor(request));
    expect(readerFor(undefined)).toBe(directReader);
  });
});
