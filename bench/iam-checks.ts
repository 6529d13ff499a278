import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DYNAMO_AUTH_CALLS_HEADER, DYNAMO_CALLS_HEADER, IAM_MS_HEADER } from '../infra/local/gateway.ts';
import type { HarnessInfo } from '../infra/local/harness-process.ts';
import { localTemplates } from '../infra/local/iam/template-cache.ts';
import { type Spread, spread } from './stats.ts';

/**
 * What IAM enforcement costs the local stack (docs/harness.md, 'IAM enforcement'): the synth
 * of the templates at start, with an empty cache and with a warm one, and the time each request's
 * SDK calls wait for their decisions (the harness's `x-local-iam-ms`), per kind of request: the
 * first request of a kind asks the harness (a message to it and back, evaluation included); later
 * ones reuse the allowed decisions in the function's worker.
 */

const WARM_UP = 5;
const MEASURED = 100;

export interface IamCheckRow {
  request: string;
  /** SDK calls the request's function makes (DynamoDB, authentication included). */
  calls: number;
  /** The first request of its kind: its calls' decisions are asked of the harness. */
  firstMs: number;
  /** Warm requests: decisions reused in the function's worker. */
  ms: Spread;
}

export interface IamChecks {
  synthColdMs: number;
  synthWarmMs: number;
  rows: IamCheckRow[];
}

export async function measureIamChecks(harness: HarnessInfo): Promise<IamChecks> {
  const cacheDir = mkdtempSync(join(tmpdir(), 'bps-bench-synth-'));
  let synthColdMs: number;
  let synthWarmMs: number;
  try {
    synthColdMs = (await localTemplates(cacheDir)).ms;
    synthWarmMs = (await localTemplates(cacheDir)).ms;
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }

  const { baseUrl, credentials } = harness;
  const business = credentials.businesses[0];
  const owner = { authorization: `Bearer ${business?.tokens.owner}` };
  const agent = { authorization: `Bearer ${credentials.agent_key}` };
  const schedule = `${baseUrl}/api/v1/businesses/${business?.id}/blog_posts/auto_schedule`;
  // The PUT first: the GET reads the schedule it leaves.
  const kinds: { request: string; send: () => Promise<Response> }[] = [
    {
      request: 'PUT blog auto-schedule (console token)',
      send: () =>
        fetch(schedule, {
          method: 'PUT',
          headers: { ...owner, 'content-type': 'application/json' },
          body: JSON.stringify({ frequency_type: 'weekly' }),
        }),
    },
    { request: 'GET blog auto-schedule (console token)', send: () => fetch(schedule, { headers: owner }) },
    {
      request: 'GET agent FAQ list (agent key)',
      send: () => fetch(`${baseUrl}/api/v1/agent/businesses/${business?.id}/faqs`, { headers: agent }),
    },
  ];
  const rows: IamCheckRow[] = [];
  for (const kind of kinds) {
    const samples: number[] = [];
    let calls = 0;
    let firstMs = Number.NaN;
    for (let round = 0; round < WARM_UP + MEASURED; round += 1) {
      const response = await kind.send();
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`${kind.request} answered ${response.status}`);
      if (round === 0) firstMs = Number(response.headers.get(IAM_MS_HEADER));
      if (round < WARM_UP) continue;
      samples.push(Number(response.headers.get(IAM_MS_HEADER)));
      calls =
        Number(response.headers.get(DYNAMO_CALLS_HEADER)) +
        Number(response.headers.get(DYNAMO_AUTH_CALLS_HEADER));
    }
    rows.push({ request: kind.request, calls, firstMs, ms: spread(samples) });
  }
  return { synthColdMs, synthWarmMs, rows };
}
