/**
 * `npm run bench`: per function, the minified bundle size and the cold init time (a fresh process
 * importing the bundle and invoking it once against DynamoDB Local), interleaved with a bare bundled
 * handler doing one SDK call (the floor); then DynamoDB calls, request units and cost per operation,
 * and the edits API under a realistic round trip. Prints Markdown on stdout and what it is doing
 * on stderr; `--help` lists the options (some sections, some functions, runs, writing the file).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentRoutes } from '#lib/routes/agent.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { parseCommandLine, positiveWholeNumber, progress, usageError } from '../infra/command-line.ts';
import { startHarnessProcess } from '../infra/local/harness-process.ts';
import { ROOT_DIR } from '../infra/local/paths.ts';
import { registerSampleClient } from '../infra/local/sample-event.ts';
import {
  BUSINESSES,
  DURATION_S,
  measureChangeEvents,
  SUSTAINED_WRITES_PER_SECOND,
  WRITES_PER_SECOND,
} from './change-events.ts';
import { measureParts } from './cold-parts.ts';
import { coldSection } from './cold-section.ts';
import { measureAgentCalls } from './dynamodb-calls.ts';
import { type Measured, measureEdits, NETWORK_DELAY_MS, WARM_UP_ROUNDS } from './edits-apply.ts';
import { measureIamChecks } from './iam-checks.ts';
import { measureMcp } from './mcp-calls.ts';
import { measureMedia } from './media-calls.ts';
import { assistantToken, measureOAuthCalls } from './oauth-calls.ts';
import {
  CLIENT_ROUND_TRIP_MS,
  crossoverBytes,
  fitCost,
  type LinearCost,
  leastRatioAllowed,
  measurePhotoDelivery,
  PHOTO_SIZES_BYTES,
  PHOTO_TARGET_RATIO,
  type PhotoDeliveryRow,
} from './photo-delivery.ts';
import { costOfMillionCalls, PRICE_NOTE } from './prices.ts';
import { formatSpread, met } from './stats.ts';
import { EMULATOR_WARM_UP_ROUNDS, warmDynamoDbLocal } from './warm-emulator.ts';
import * as webhooks from './webhook-deliveries.ts';

const SECTIONS = [
  'cold',
  'parts',
  'agent',
  'edits',
  'oauth',
  'mcp',
  'media',
  'iam',
  'events',
  'webhooks',
] as const;
const COMMAND = {
  name: 'npm run bench',
  usage: `
Usage: npm run bench -- [--only SECTIONS] [--functions NAMES] [--runs N] [--write]

Measures the functions on a local stack of its own (free ports) and prints Markdown on stdout;
progress (which section, which function) goes to stderr.

  --only SECTIONS    comma-separated, some of: ${SECTIONS.join(', ')} (default: all)
  --functions NAMES  comma-separated operationIds: the cold section measures only these
                     (default: every function), e.g. getFaq,handleMcp
  --runs N           pairs of cold starts per function (default: BENCH_RUNS, else 7)
  --write            also write the output to bench/results.md
  -h, --help         this text

Example:
  npm run bench -- --only cold --functions getFaq,handleMcp --runs 3
`,
};
const { values: options } = parseCommandLine(COMMAND, {
  options: {
    only: { type: 'string' },
    functions: { type: 'string' },
    runs: { type: 'string', default: process.env.BENCH_RUNS ?? '7' },
    write: { type: 'boolean', default: false },
  },
});
const RUNS = positiveWholeNumber(COMMAND, 'runs', options.runs);
const only = options.only?.split(',');
for (const section of only ?? []) {
  if (!(SECTIONS as readonly string[]).includes(section))
    usageError(COMMAND, `--only: no section "${section}"; the sections are ${SECTIONS.join(', ')}`);
}
const runs = (section: (typeof SECTIONS)[number]) => only === undefined || only.includes(section);
const functions = options.functions?.split(',');
for (const name of functions ?? []) {
  if (!routeTable.some((route) => route.operationId === name))
    usageError(COMMAND, `--functions: no operation "${name}" in the route table`);
}
const measuredRoutes = routeTable.filter((route) => !functions || functions.includes(route.operationId));
const SNAPSHOT_TARGET = { calls: 3, roundTrips: 2 };
/** Sequential DynamoDB round trips of an apply or a revert, at every changeset size. */
const APPLY_ROUND_TRIPS_TARGET = 4;
/** Median milliseconds IAM enforcement may add to a local request (its decisions come from a per-function cache). */
const IAM_ADDED_MS_GOAL = 2;

const lines: string[] = [];
const out = (line = '') => {
  console.log(line);
  lines.push(line);
};
const usd = (value: number) => (value < 0.01 ? value.toFixed(4) : value.toFixed(2));
const costRows: { operation: string; ms: number; calls: number; readUnits: number; writeUnits: number }[] =
  [];

progress('bench: starting a local stack (emulators on free ports)…');
const harness = await startHarnessProcess();
const workDir = mkdtempSync(join(tmpdir(), 'bps-bench-'));
try {
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT_DIR }).toString().trim();
  out(`# Bench results\n`);
  out(
    `Commit ${commit}, ${new Date().toISOString().slice(0, 16)}Z; Node ${process.versions.node}, ${cpus().length} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} at the start (a shared machine: read spreads, not single figures).`,
  );

  progress('bench: warming DynamoDB Local…');
  await warmDynamoDbLocal(harness.info);
  out(
    `\nDynamoDB Local is warmed before anything is measured (${EMULATOR_WARM_UP_ROUNDS} rounds of a 99-action transaction, a GetItem, a BatchGetItem and a Query): its JVM takes a few dozen large transactions to reach a steady speed, and DynamoDB is never cold.`,
  );

  // The tool server's sample event is a tools/list, which needs an assistant token; the
  // authorization endpoint's names a registered client. So each reaches its operation.
  const extras = {
    ...(await registerSampleClient(harness.info.baseUrl)),
    assistantToken: await assistantToken(harness.info, '/mcp'),
  };
  const cold = runs('cold')
    ? await coldSection({ harness: harness.info, workDir, routes: measuredRoutes, runs: RUNS, extras, out })
    : [];

  if (runs('parts')) {
    progress('bench: parts: bundling and starting each probe…');
    const parts = await measureParts(workDir, Math.max(RUNS, 11));
    const kb = (bytes: number) => (bytes / 1024).toFixed(0);
    out(
      `\n## What the parts of a function cost a cold start\n\nEach part alone in a probe (bench/probes/), bundled as the functions are, loaded and called in fresh processes; the probes interleaved, ${parts[0]?.init.n} rounds. Over = the probe's median init over its base probe's. Parts share modules, so the figures add up only roughly.\n`,
    );
    out('| part | bundle KB | init ms | over | base |');
    out('|---|---:|---:|---:|---|');
    for (const part of parts) {
      out(
        `| ${part.what} | ${kb(part.bytes)} | ${formatSpread(part.init)} | ${part.overBase === undefined ? '' : `${part.overBase >= 0 ? '+' : '−'}${Math.abs(part.overBase).toFixed(0)}`} | ${part.base ?? ''} |`,
      );
    }
  }

  if (runs('agent')) {
    progress('bench: agent operations: DynamoDB calls and request units…');
    const calls = await measureAgentCalls(harness.info);
    out(
      `\n## DynamoDB calls per agent operation\n\nCounted by an SDK middleware in the harness (infra/local/dynamodb-usage.ts); auth = the agent key lookup when it is a call of its own (a get, a change or a member list reads the key and its record in one BatchGetItem, lib/db/item-reader.ts, counted as the operation's call); round trips = sequential DynamoDB round trips, the key's lookup included (an operation's read goes out beside it, lib/http/early-read.ts, so the two count once); request units as DynamoDB Local reports them (ReturnConsumedCapacity TOTAL; it reports 2 for any TransactWriteItems, so those count at least 2 per action, as DynamoDB charges for items up to 1 KB), auth included; ms = one warm request through the harness (the function first reached by a request that changes nothing), with ${NETWORK_DELAY_MS} ms added to each DynamoDB call.\n`,
    );
    out(
      '| operation | status | DynamoDB calls | + auth calls | round trips | read units | write units | ms |',
    );
    out('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const row of calls) {
      out(
        `| ${row.operationId} | ${row.status} | ${row.calls} | ${row.authCalls} | ${row.roundTrips} | ${row.readUnits} | ${row.writeUnits} | ${row.ms.toFixed(0)} |`,
      );
      costRows.push({ operation: `agent ${row.operationId}`, ...row, calls: row.calls + row.authCalls });
    }
    out(`\n${calls.length} of ${Object.keys(agentRoutes).length} agent operations measured.`);
  }

  if (runs('edits')) {
    progress(`bench: edits API: snapshot, apply and revert under a ${NETWORK_DELAY_MS} ms round trip…`);
    const edits = await measureEdits(harness.info, Math.max(1, Math.min(RUNS, 5)));
    const base = edits.plainUpdate.median;
    const times = (m: Measured) =>
      `${formatSpread(m.ms)} | ${(m.ms.median / base).toFixed(1)} (${(m.ms.p25 / base).toFixed(1)}–${(m.ms.p75 / base).toFixed(1)})`;
    out(
      `\n## Edits API under a realistic round trip\n\nEvery DynamoDB call waits ${NETWORK_DELAY_MS} ms first (an SDK middleware, only in the bench's requests), here and in the plain UpdateItem the figures are compared with: ${formatSpread(edits.plainUpdate, 1)} ms. Times are median (p25–p75) of ${edits.rows[0]?.apply.ms.n} runs through the harness, after ${WARM_UP_ROUNDS} unmeasured runs of each size; round trips = sequential DynamoDB round trips (calls sent together count once).\n`,
    );
    const snap = edits.snapshot;
    out(
      `Snapshot: ${snap.calls} DynamoDB calls in ${snap.roundTrips} round trips (target ≤ ${SNAPSHOT_TARGET.calls} calls in ≤ ${SNAPSHOT_TARGET.roundTrips}: ${met(snap.calls <= SNAPSHOT_TARGET.calls && snap.roundTrips <= SNAPSHOT_TARGET.roundTrips)}), ${formatSpread(snap.ms)} ms.\n`,
    );
    out(
      '| items | apply ms | apply × one UpdateItem | apply calls | apply round trips | revert ms | revert × one UpdateItem | revert calls | revert round trips |',
    );
    out('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const row of edits.rows) {
      out(
        `| ${row.items} | ${times(row.apply)} | ${row.apply.calls} | ${row.apply.roundTrips} | ${times(row.revert)} | ${row.revert.calls} | ${row.revert.roundTrips} |`,
      );
    }
    const trips = edits.rows.flatMap((row) => [row.apply.roundTrips, row.revert.roundTrips]);
    out(
      `\nRound trips of apply and revert at ${edits.rows.map((row) => row.items).join(', ')} items: at most ${Math.max(...trips)} (target ≤ ${APPLY_ROUND_TRIPS_TARGET} at every size: ${met(Math.max(...trips) <= APPLY_ROUND_TRIPS_TARGET)}).`,
    );
    const hundred = edits.rows.find((row) => row.items === 100);
    if (hundred) {
      const apply = hundred.apply.ms.median / base;
      const revert = hundred.revert.ms.median / base;
      out(
        `\n100 items: apply ${apply.toFixed(1)}×, revert ${revert.toFixed(1)}× one UpdateItem (median of ${hundred.apply.ms.n} run${hundred.apply.ms.n === 1 ? '' : 's'}; a figure, not a target: round trips are what holds, above).`,
      );
      out(
        `\nDynamoDB Local alone, warm, no delay: one TransactWriteItems of 99 conditional updates takes ${formatSpread(edits.emulatorTransaction)} ms. It runs transactions one after another, so the ~300 actions of a 100-item apply or revert cost about three of these in the emulator whatever the concurrency; in DynamoDB, transactions on different items do not wait for one another.`,
      );
    }
    costRows.push({ operation: 'edits snapshot', ...snap, ms: snap.ms.median });
    for (const row of edits.rows) {
      costRows.push({ operation: `edits apply, ${row.items} items`, ...row.apply, ms: row.apply.ms.median });
      costRows.push({
        operation: `edits revert, ${row.items} items`,
        ...row.revert,
        ms: row.revert.ms.median,
      });
    }
  }

  if (costRows.length > 0) {
    out(
      `\n## Cost of one million calls\n\nPer operation: the request units it consumed and its warm duration as measured above (${NETWORK_DELAY_MS} ms per DynamoDB call added), priced. ${PRICE_NOTE}\n`,
    );
    out('| operation | calls | read units | write units | ms | DynamoDB $ | Lambda $ | total $ |');
    out('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const row of costRows) {
      const cost = costOfMillionCalls(row.readUnits, row.writeUnits, row.ms);
      out(
        `| ${row.operation} | ${row.calls} | ${row.readUnits} | ${row.writeUnits} | ${row.ms.toFixed(0)} | ${usd(cost.dynamo)} | ${usd(cost.lambda)} | ${usd(cost.total)} |`,
      );
    }
  }

  if (runs('oauth')) {
    progress('bench: OAuth: an assistant connecting…');
    const oauthRows = await measureOAuthCalls(harness.info);
    out(
      '\n## OAuth: an assistant connecting\n\nDynamoDB calls as counted by the harness; auth = credential checks.\n',
    );
    out('| step | status | DynamoDB calls | + auth calls |');
    out('|---|---:|---:|---:|');
    for (const row of oauthRows) out(`| ${row.step} | ${row.status} | ${row.calls} | ${row.authCalls} |`);
  }

  if (runs('mcp')) {
    progress('bench: tool server…');
    const mcp = await measureMcp(harness.info, extras.assistantToken, Math.max(5, RUNS));
    const mcpCold = cold.find((row) => row.name === 'handleMcp');
    out('\n## Assistant tool server (POST /mcp)\n');
    if (mcpCold) {
      out(
        `Cold start (import + first tools/list): ${formatSpread(mcpCold.init)} ms, ${mcpCold.ratio.median.toFixed(2)}× the floor (${mcpCold.floor.median.toFixed(0)} ms in the same pairs); bundle ${(mcpCold.bytes / 1024).toFixed(0)} KB.`,
      );
    }
    out(
      `Warm, through the harness (median of ${mcp.runs}): tools/list ${mcp.toolsListMs.toFixed(1)} ms; get_snapshot ${mcp.snapshotMs.toFixed(1)} ms with ${mcp.snapshotCalls} DynamoDB calls (+1 auth: the grant).`,
    );
  }

  if (runs('media')) {
    progress('bench: internal media…');
    const mediaFigures = await measureMedia(harness.info);
    out('\n## Internal media\n\nDynamoDB calls as counted by the harness; the internal key costs none.\n');
    out('| operation | status | DynamoDB calls |');
    out('|---|---:|---:|');
    for (const row of mediaFigures.calls) out(`| ${row.operation} | ${row.status} | ${row.calls} |`);

    progress(`bench: photo bytes inline and 303 at ${PHOTO_SIZES_BYTES.length} sizes…`);
    const photos = await measurePhotoDelivery(harness.info, Math.max(7, RUNS));
    const size = (bytes: number) =>
      bytes >= 1024 * 1024
        ? `${(bytes / 1024 / 1024).toFixed(bytes % (1024 * 1024) ? 1 : 0)} MB`
        : `${Math.round(bytes / 1024)} KB`;
    out(
      `\n### Photo bytes: inline or 303\n\nThe model: a client one round trip of ${CLIENT_ROUND_TRIP_MS} ms from the region (a client on the same continent; API Gateway and S3 are in the same region, so the same round trip to each) and ${NETWORK_DELAY_MS} ms per call inside the region (the function to DynamoDB and to S3). The bench's client waits ${CLIENT_ROUND_TRIP_MS} ms before each request it sends; the harness has each DynamoDB and S3 call of the function wait ${NETWORK_DELAY_MS} ms (x-local-network-delay-ms). Inline = one request answered 200 with the bytes (a GetItem, a GetObject, base64 out of the function); 303 = the request answered 303 (a GetItem and a presigned URL), then the client's GET of its Location from S3; bare = the client's own GetObject of the same object (one round trip). Both answers are forced at every size by the harness-only header x-local-photo-inline-limit-bytes (PHOTO_INLINE_LIMIT_BYTES of a container of its own). Median (p25–p75) of ${photos.runs} rounds, the three interleaved; × bare is the median of per-round ratios.\n`,
    );
    out(
      '| photo | inline ms | inline × bare | 303 + GET ms | 303 × bare | bare GetObject ms | service answers | × bare, as answered | least × bare the model allows |',
    );
    out('|---:|---:|---:|---:|---:|---:|---|---:|---:|');
    const least = (row: PhotoDeliveryRow) => {
      const allowed = leastRatioAllowed(row.bare.median);
      return Math.min(allowed.inline, allowed.redirect);
    };
    for (const row of photos.rows) {
      const answered = row.serviceAnswer === 'inline' ? row.inlineRatio : row.redirectRatio;
      out(
        `| ${size(row.bytes)} | ${formatSpread(row.inline)} | ${formatSpread(row.inlineRatio, 2)} | ${formatSpread(row.redirect)} | ${formatSpread(row.redirectRatio, 2)} | ${formatSpread(row.bare)} | ${row.serviceAnswer} | ${answered.median.toFixed(2)} | ${least(row).toFixed(2)} |`,
      );
    }
    const outOfReach = photos.rows.filter((row) => least(row) > PHOTO_TARGET_RATIO);
    const inlineCost = fitCost(photos.rows, 'inline');
    const redirectCost = fitCost(photos.rows, 'redirect');
    const line = (cost: LinearCost) =>
      `${cost.fixedMs.toFixed(0)} ms + ${cost.msPerMegabyte.toFixed(1)} ms/MB`;
    const crossoverAt = (roundTripMs: number) => {
      const bytes = crossoverBytes(inlineCost, redirectCost, roundTripMs);
      if (bytes === undefined) return 'no size';
      return bytes === 0 ? 'any size' : size(bytes);
    };
    const worst = Math.max(
      ...photos.rows.map(
        (row) => (row.serviceAnswer === 'inline' ? row.inlineRatio : row.redirectRatio).median,
      ),
    );
    out(
      `\nLines through the medians: inline ${line(inlineCost)}, 303 ${line(redirectCost)}. The 303 is the faster answer from ${crossoverAt(CLIENT_ROUND_TRIP_MS)} on at a ${CLIENT_ROUND_TRIP_MS} ms client round trip (moving the 303's line by the difference: ${[10, 60].map((ms) => `${crossoverAt(ms)} at ${ms} ms`).join(', ')}). Inline limit: ${size(photos.inlineLimitBytes)} (INLINE_LIMIT_BYTES, lib/media/inline-limit.ts; hard ceiling ${(photos.payloadCeilingBytes / 1e6).toFixed(1)} MB, the Lambda payload). Worst size as the service answers: ${worst.toFixed(2)}× bare, target ≤ ${PHOTO_TARGET_RATIO}× at every size: ${met(worst <= PHOTO_TARGET_RATIO)}.`,
    );
    out(
      `\nThe last column is the least any answer could take under the model (leastRatioAllowed): the owner pointer must be read before the object, since it names the business in the object's key and holds the deletion that answers 410, so inline costs a bare read plus two in-region calls (${2 * NETWORK_DELAY_MS} ms) and the 303 a bare read plus its own client round trip and the pointer's call (${CLIENT_ROUND_TRIP_MS + NETWORK_DELAY_MS} ms), with the function's own work, DynamoDB's time, base64 and the API taken as free. ${outOfReach.length ? `Above the ${PHOTO_TARGET_RATIO}× target at ${outOfReach.map((row) => size(row.bytes)).join(', ')}: there no answer the model allows meets it.` : `At or below the ${PHOTO_TARGET_RATIO}× target at every size.`}`,
    );
  }

  if (runs('iam')) {
    progress('bench: IAM enforcement: the synth, cold and warm, and each request’s wait for decisions…');
    const iam = await measureIamChecks(harness.info);
    out(
      `\n## IAM enforcement in the harness\n\nEvery SDK call of a local function is checked against its role's policies in the synthesized templates (docs/harness.md, 'IAM enforcement'). The templates come from a synth at start: ${(iam.synthColdMs / 1000).toFixed(1)} s with an empty cache, ${iam.synthWarmMs.toFixed(0)} ms from the cache. Per request, the time its SDK calls waited for their decisions (the harness's \`x-local-iam-ms\`): the first request of a kind asks the harness (a message from the function's worker and back, the evaluation included); later ones reuse allowed decisions in the worker. Warm: median (p25–p75) of ${iam.rows[0]?.ms.n} requests:\n`,
    );
    out('| request | SDK calls | first request ms | warm ms |');
    out('|---|---:|---:|---:|');
    for (const row of iam.rows) {
      out(`| ${row.request} | ${row.calls} | ${row.firstMs.toFixed(3)} | ${formatSpread(row.ms, 3)} |`);
    }
    const worst = Math.max(...iam.rows.map((row) => row.ms.median));
    out(
      `\nWorst median: ${worst.toFixed(3)} ms added per request (goal < ${IAM_ADDED_MS_GOAL} ms: ${met(worst < IAM_ADDED_MS_GOAL)}).`,
    );
  }

  if (runs('events')) {
    const rates = [WRITES_PER_SECOND, SUSTAINED_WRITES_PER_SECOND];
    const measured = [];
    for (const rate of rates) {
      progress(
        `bench: change events: ${rate} writes a second over ${BUSINESSES} businesses for ${DURATION_S} s…`,
      );
      measured.push(await measureChangeEvents(harness.info, rate));
    }
    const ms = (value: number) => `${value.toFixed(0)} ms`;
    out(
      `\n## Change events\n\nAgent writes (one FAQ create in five, PATCHes otherwise) over ${BUSINESSES} businesses for ${DURATION_S} s, at ${WRITES_PER_SECOND} a second and at ${SUSTAINED_WRITES_PER_SECOND} (a rate this stack sustains on 2 cores; at ${WRITES_PER_SECOND} DynamoDB Local falls behind and functions time out: the refused writes). From each event's \`occurred_at\` (stamped just before its transaction commits) to the moment it was readable in the feed (a Query of the feed of every business every 100 ms: the same transaction puts it there and in its business's feed) and to the moment the local bus received it from the publisher (docs/events.md):\n`,
    );
    out(
      '| writes/s | writes (refused) | events | feed p50 | feed p99 | bus p50 | bus p99 | lost | duplicated |',
    );
    out('|---:|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const events of measured) {
      const refused = Object.entries(events.refusals)
        .map(([status, count]) => `${count} × ${status}`)
        .join(', ');
      out(
        `| ${events.writesPerSecond} | ${events.writes} (${events.failedWrites}${refused ? `: ${refused}` : ''}) | ${events.feed.n} | ${ms(events.feed.p50)} | ${ms(events.feed.p99)} | ${ms(events.bus.p50)} | ${ms(events.bus.p99)} | ${events.lost} | ${events.duplicated} |`,
      );
    }
    const worstFeed = Math.max(...measured.map((events) => events.feed.p99));
    const worstBus = Math.max(...measured.map((events) => events.bus.p99));
    const exact = measured.every((events) => events.lost === 0 && events.duplicated === 0);
    out(
      `\nGoals (p99, every rate): ≤ 2 s to the feed: ${met(worstFeed <= 2000)}; ≤ 3 s to the bus: ${met(worstBus <= 3000)}. Required: 0 lost, 0 duplicated: ${met(exact)}. Lost counts Change History entries of acknowledged or refused writes that committed with no event in the feed.`,
    );
  }

  if (runs('webhooks')) await webhooks.webhooksSection(harness.info, out);

  if (options.write) {
    writeFileSync(join(ROOT_DIR, 'bench', 'results.md'), `${lines.join('\n')}\n`);
    console.log('\nWritten to bench/results.md');
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
  await harness.stop();
}
