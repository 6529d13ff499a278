/**
 * `npm run bench`: per function, the minified bundle size and the cold init time (a fresh process
 * importing the bundle and invoking it once against DynamoDB Local), next to a bare bundled
 * handler doing one SDK call, measured in the same run. Prints a Markdown table.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentRoutes } from '#lib/routes/agent.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { startHarnessProcess } from '../infra/local/harness-process.ts';
import { sampleEvent } from '../infra/local/sample-event.ts';
import { buildBundle, type ColdStart, coldStart } from './cold-start.ts';
import { measureAgentCalls } from './dynamodb-calls.ts';
import { measureEdits } from './edits-apply.ts';
import { measureMcp } from './mcp-calls.ts';
import { measureMedia } from './media-calls.ts';
import { assistantToken, measureOAuthCalls } from './oauth-calls.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

const harness = await startHarnessProcess();
const workDir = mkdtempSync(join(tmpdir(), 'bps-bench-'));
try {
  const { env, credentials } = harness.info;

  async function measure(name: string, entry: string, event: Parameters<typeof coldStart>[1]) {
    const outDir = join(workDir, name);
    mkdirSync(outDir);
    const { file, bytes } = await buildBundle(entry, outDir);
    const runs: ColdStart[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await coldStart(file, event, env));
    const failed = runs.find((r) => r.statusCode === undefined || r.statusCode >= 500);
    if (failed) throw new Error(`${name} answered ${failed.statusCode} during the bench`);
    const importMs = median(runs.map((r) => r.importMs));
    const initMs = median(runs.map((r) => r.importMs + r.invokeMs));
    return { name, bytes, importMs, initMs, status: runs[0]?.statusCode };
  }

  // The tool server's sample event is a tools/list; it needs an assistant token to get past 401.
  const mcpToken = await assistantToken(harness.info, '/mcp');
  const eventFor = (route: (typeof routeTable)[number]) => {
    const event = sampleEvent(route, credentials);
    if (route.auth === 'mcp') event.headers.authorization = `Bearer ${mcpToken}`;
    return event;
  };

  const baseline = await measure('baseline', 'bench/baseline-handler.ts', {});
  const rows = [];
  for (const route of routeTable) rows.push(await measure(route.operationId, route.handler, eventFor(route)));

  const kb = (bytes: number) => (bytes / 1024).toFixed(0);
  const ms = (value: number) => value.toFixed(0);
  console.log(
    `\nCold start, median of ${RUNS} fresh processes each (Node ${process.versions.node}, DynamoDB Local)\n`,
  );
  console.log('| function | bundle KB | import ms | import + 1st call ms | × baseline (init) | status |');
  console.log('|---|---:|---:|---:|---:|---:|');
  console.log(
    `| baseline: bare handler, one GetItem | ${kb(baseline.bytes)} | ${ms(baseline.importMs)} | ${ms(baseline.initMs)} | 1.00 | ${baseline.status} |`,
  );
  for (const row of rows) {
    console.log(
      `| ${row.name} | ${kb(row.bytes)} | ${ms(row.importMs)} | ${ms(row.initMs)} | ${(row.initMs / baseline.initMs).toFixed(2)} | ${row.status} |`,
    );
  }

  const calls = await measureAgentCalls(harness.info);
  console.log(
    '\nDynamoDB calls per agent operation (counted by an SDK middleware in the harness; auth = the agent key lookup)\n',
  );
  console.log('| operation | status | DynamoDB calls | + auth calls | capacity units (incl. auth) |');
  console.log('|---|---:|---:|---:|---:|');
  for (const row of calls) {
    console.log(`| ${row.operationId} | ${row.status} | ${row.calls} | ${row.authCalls} | ${row.capacity} |`);
  }
  console.log(`\n${calls.length} of ${Object.keys(agentRoutes).length} agent operations measured.`);

  const editsFigures = await measureEdits(harness.info, Math.max(1, Math.min(RUNS, 3)));
  console.log('\nEdits API (DynamoDB calls as counted by the harness; apply = median of up to 3 runs)\n');
  console.log(
    `Snapshot: ${editsFigures.snapshotCalls} DynamoDB calls (session read + access check + session touch + 1 Query of the business partition)`,
  );
  console.log(`One plain UpdateItem: ${editsFigures.baselineMs.toFixed(1)} ms\n`);
  console.log('| changeset items | apply ms | × one UpdateItem | DynamoDB calls | calls per item |');
  console.log('|---:|---:|---:|---:|---:|');
  for (const row of editsFigures.rows) {
    console.log(
      `| ${row.items} | ${row.applyMs.toFixed(0)} | ${row.ratio.toFixed(1)} | ${row.calls} | ${(row.calls / row.items).toFixed(2)} |`,
    );
  }

  const oauthRows = await measureOAuthCalls(harness.info);
  console.log(
    '\nOAuth: an assistant connecting (DynamoDB calls as counted by the harness; auth = credential checks)\n',
  );
  console.log('| step | status | DynamoDB calls | + auth calls |');
  console.log('|---|---:|---:|---:|');
  for (const row of oauthRows)
    console.log(`| ${row.step} | ${row.status} | ${row.calls} | ${row.authCalls} |`);

  const mcp = await measureMcp(harness.info, mcpToken, Math.max(5, RUNS));
  const mcpCold = rows.find((row) => row.name === 'handleMcp');
  console.log('\nAssistant tool server (POST /mcp)\n');
  console.log(
    `Cold start (import + first tools/list): ${ms(mcpCold?.initMs ?? Number.NaN)} ms, ${((mcpCold?.initMs ?? Number.NaN) / baseline.initMs).toFixed(2)}× the baseline (${ms(baseline.initMs)} ms); bundle ${kb(mcpCold?.bytes ?? 0)} KB`,
  );
  console.log(
    `Warm, through the harness (median of ${mcp.runs}): tools/list ${mcp.toolsListMs.toFixed(1)} ms; get_snapshot ${mcp.snapshotMs.toFixed(1)} ms with ${mcp.snapshotCalls} DynamoDB calls (+1 auth: the grant)`,
  );

  const mediaFigures = await measureMedia(harness.info, Math.max(5, RUNS));
  console.log('\nInternal media (DynamoDB calls as counted by the harness; the internal key costs none)\n');
  console.log('| operation | status | DynamoDB calls |');
  console.log('|---|---:|---:|');
  for (const row of mediaFigures.calls) console.log(`| ${row.operation} | ${row.status} | ${row.calls} |`);
  console.log(
    `\nStreaming a photo (median of ${mediaFigures.runs}), next to a bare S3 GetObject of the same object\n`,
  );
  console.log('| photo | through the harness ms | bare GetObject ms | × |');
  console.log('|---:|---:|---:|---:|');
  for (const row of mediaFigures.streaming) {
    console.log(
      `| ${row.megabytes} MB | ${row.throughHarnessMs.toFixed(1)} | ${row.bareGetObjectMs.toFixed(1)} | ${(row.throughHarnessMs / row.bareGetObjectMs).toFixed(2)} |`,
    );
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
  await harness.stop();
}
