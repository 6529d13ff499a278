import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#lib/db/client.ts';
import { tableDefinition } from '#lib/db/table.ts';

type Item = Record<string, unknown>;

/** Calls one page may make before it answers with what it has (see queryFilledPage). */
export const MAX_PAGE_CALLS = 6;
/** Items the first call of a filtered page examines, at least; each later call examines 8× more. */
const FIRST_FILTERED_EXAMINED = 50;
const GROWTH = 8;

/**
 * One page of a Query, full: `limit` items unless the query has no more. DynamoDB applies `Limit` to
 * the items it examines, before a FilterExpression, so one call with the page's size can answer
 * fewer matches, or none, with a LastEvaluatedKey while later items match. This queries on from
 * where the last call stopped, each call examining 8 times as many items as the one before, until
 * it holds one match more than the page (so a page has a next key exactly when more follow), the
 * query ends, or MAX_PAGE_CALLS calls were made: then the page holds what was found, short or even
 * empty, and the key where the examination stopped (a DynamoDB call reads at most 1 MB, so six
 * calls bound the page's cost). Without a filter a page is one call.
 *
 * `lastKey` is the key to start the next page after: the page's last item's, or where the
 * examination stopped; undefined when the query has no more.
 */
export async function queryFilledPage(
  input: Omit<QueryCommandInput, 'Limit' | 'ExclusiveStartKey'>,
  page: { limit: number; start?: Item | undefined },
): Promise<{ items: Item[]; lastKey: Item | undefined }> {
  const found: Item[] = [];
  let start = page.start;
  let examined = input.FilterExpression ? Math.max(page.limit + 1, FIRST_FILTERED_EXAMINED) : page.limit + 1;
  for (let call = 1; ; call++) {
    const result = await dynamo.send(
      new QueryCommand({ ...input, Limit: examined, ...(start ? { ExclusiveStartKey: start } : {}) }),
    );
    found.push(...(result.Items ?? []));
    const last = found[page.limit - 1];
    if (found.length > page.limit && last) {
      return { items: found.slice(0, page.limit), lastKey: keyOf(last, input.IndexName) };
    }
    if (!result.LastEvaluatedKey || call === MAX_PAGE_CALLS) {
      return { items: found, lastKey: result.LastEvaluatedKey };
    }
    start = result.LastEvaluatedKey;
    examined *= GROWTH;
  }
}

/** An item's key in the table, and in the index queried: what ExclusiveStartKey takes. */
function keyOf(item: Item, indexName: string | undefined): Item {
  const index = tableDefinition.globalSecondaryIndexes.find((candidate) => candidate.indexName === indexName);
  const names = [
    tableDefinition.partitionKey,
    tableDefinition.sortKey,
    ...(index ? [index.partitionKey, index.sortKey] : []),
  ];
  return Object.fromEntries(names.map((name) => [name, item[name]]));
}
