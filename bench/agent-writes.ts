/**
 * The load both event benches put on the local stack: one FAQ per business first, then agent
 * writes at a steady rate over the businesses, round robin, one FAQ create in five and PATCHes of
 * the first FAQ otherwise, every write a Change History entry and so a change event. Resolves once
 * every write has been answered, with the refusals counted by status.
 */
export interface WriteLoad {
  writes: number;
  failedWrites: number;
  refusals: Record<string, number>;
}

export async function driveAgentWrites(input: {
  baseUrl: string;
  key: string;
  businessIds: string[];
  writesPerSecond: number;
  durationS: number;
}): Promise<WriteLoad> {
  const headers = { authorization: `Bearer ${input.key}`, 'content-type': 'application/json' };
  const agentUrl = (businessId: string, rest = '') =>
    `${input.baseUrl}/api/v1/agent/businesses/${businessId}/faqs${rest}`;
  const faqs = await Promise.all(
    input.businessIds.map(async (id) => {
      const response = await fetch(agentUrl(id), {
        method: 'POST',
        headers,
        body: JSON.stringify({ question: 'Bench?', answer: 'Yes' }),
      });
      return ((await response.json()) as { data: { id: string } }).data.id;
    }),
  );
  const total = input.writesPerSecond * input.durationS;
  const started = Date.now();
  let failedWrites = 0;
  const refusals = new Map<number, number>();
  const writes: Promise<void>[] = [];
  for (let index = 0; index < total; index += 1) {
    const due = started + (index * 1000) / input.writesPerSecond;
    await pause(Math.max(0, due - Date.now()));
    const business = index % input.businessIds.length;
    const businessId = input.businessIds[business] as string;
    const request =
      index % 5 === 0
        ? fetch(agentUrl(businessId), {
            method: 'POST',
            headers,
            body: JSON.stringify({ question: `Q${index}?`, answer: 'A' }),
          })
        : fetch(agentUrl(businessId, `/${faqs[business]}`), {
            method: 'PATCH',
            headers,
            body: JSON.stringify({ answer: `answer ${index}` }),
          });
    writes.push(
      request.then(async (response) => {
        await response.arrayBuffer();
        if (!response.ok) {
          failedWrites += 1;
          refusals.set(response.status, (refusals.get(response.status) ?? 0) + 1);
        }
      }),
    );
  }
  await Promise.all(writes);
  return { writes: total + input.businessIds.length, failedWrites, refusals: Object.fromEntries(refusals) };
}

/** Every Change History entry's id of the businesses: one event each. */
export async function historyIds(businessIds: string[]): Promise<Set<string>> {
  const [{ tableName }, { keys }, { queryAll }] = await Promise.all([
    import('#lib/db/client.ts'),
    import('#lib/db/keys.ts'),
    import('#lib/db/query-all.ts'),
  ]);
  const ids = new Set<string>();
  for (const id of businessIds) {
    const entries = await queryAll({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :history)',
      ExpressionAttributeValues: { ':pk': keys.business(id).pk, ':history': 'HISTORY#' },
      ConsistentRead: true,
    });
    for (const entry of entries) ids.add(String(entry.id));
  }
  return ids;
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
