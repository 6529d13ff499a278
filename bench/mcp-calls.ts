import type { HarnessInfo } from '../infra/local/harness-process.ts';

export interface McpTimings {
  toolsListMs: number;
  snapshotMs: number;
  snapshotCalls: number;
  runs: number;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/**
 * The tool server through the harness, warm: the median time of `tools/list` and of a
 * `get_snapshot` tool call (the first demo business, one record of each kind), and the DynamoDB
 * calls of that snapshot call.
 */
export async function measureMcp(
  harness: HarnessInfo,
  accessToken: string,
  runs: number,
): Promise<McpTimings> {
  const business = harness.credentials.businesses[0];
  if (!business) throw new Error('no demo business');
  let id = 0;
  const post = async (method: string, params: object) => {
    const started = performance.now();
    const response = await fetch(`${harness.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    const body = (await response.json()) as {
      result?: { structuredContent?: { id?: string } };
      error?: unknown;
    };
    const ms = performance.now() - started;
    if (response.status !== 200 || body.error) throw new Error(`${method} answered ${response.status}`);
    return { ms, body, calls: Number(response.headers.get('x-local-dynamodb-calls')) };
  };
  const call = (name: string, args: object) => post('tools/call', { name, arguments: args });

  const session = await call('open_edit_session', { business_id: business.id });
  const sessionId = session.body.result?.structuredContent?.id;
  const list: number[] = [];
  const snapshot: { ms: number; calls: number }[] = [];
  for (let i = 0; i < runs; i++) {
    list.push((await post('tools/list', {})).ms);
    snapshot.push(await call('get_snapshot', { session_id: sessionId }));
  }
  return {
    toolsListMs: median(list),
    snapshotMs: median(snapshot.map((s) => s.ms)),
    snapshotCalls: median(snapshot.map((s) => s.calls)),
    runs,
  };
}
