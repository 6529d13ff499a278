import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RouteDefinition } from '#lib/http/route.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { progress } from '../infra/command-line.ts';
import type { HarnessInfo } from '../infra/local/harness-process.ts';
import { type SampleExtras, sampleEvent } from '../infra/local/sample-event.ts';
import { COLD_KINDS, coldKindOf } from './cold-kinds.ts';
import {
  buildBundle,
  type ColdFigures,
  type Contender,
  coldStart,
  measureAgainstFloor,
} from './cold-start.ts';
import { REQUIREMENT_PROBES } from './requirement-probes.ts';
import { madePerRequest, sampleFor, sampleItemIds } from './sample-items.ts';
import { formatSpread, mean, median, met, spread } from './stats.ts';

/**
 * Cold init against the floor: the mean ratio over all functions, and no function's median ratio
 * above `max`. The target holds when two consecutive runs meet it; one run prints its own verdict.
 */
const COLD_TARGET = { mean: 1.25, max: 1.4 };

export interface ColdSectionInput {
  harness: HarnessInfo;
  /** Where the bundles are built (a directory per bundle). */
  workDir: string;
  routes: readonly RouteDefinition[];
  /** Pairs of cold starts per function. */
  runs: number;
  /** What the sample requests need from the running stack (sample-event.ts). */
  extras: SampleExtras;
  out: (line?: string) => void;
}

/** A function's init over the floor's in the same pair, ms: the median over its pairs. */
const msOverFloor = (row: ColdFigures): number =>
  median(row.inits.map((init, i) => init - (row.floorInits[i] ?? init)));

/**
 * The bench's cold-start section: every function's cold starts against the floor's, the verdict
 * against the targets, a summary by kind of function, getFaq, updateFaq and createFaq taken apart
 * step by step (bench/requirement-probes.ts), and two reads in one cold start. Returns the
 * functions' figures.
 */
export async function coldSection({
  harness,
  workDir,
  routes,
  runs,
  extras,
  out,
}: ColdSectionInput): Promise<ColdFigures[]> {
  const { env, credentials } = harness;
  const cold: ColdFigures[] = [];
  const itemIds = await sampleItemIds(harness);
  // A request that uses up what it names (a delete's record, a changeset it applies…) gets its own.
  const eventsFor = async (route: RouteDefinition): Promise<Contender['event']> => {
    const event = async () =>
      sampleEvent(route, credentials, { ...extras, ...(await sampleFor(harness, route, itemIds)) });
    return madePerRequest(route) ? event : await event();
  };
  const bundle = (name: string, entry: string) => {
    const outDir = join(workDir, name);
    mkdirSync(outDir);
    return buildBundle(entry, outDir);
  };
  progress('bench: cold starts: bundling the floor…');
  const floor = await bundle('floor', 'bench/baseline-handler.ts');
  // One unmeasured start of each warms the disk cache, so the first pair is not an outlier.
  await coldStart(floor.file, {}, env);
  const built = new Map<string, Awaited<ReturnType<typeof bundle>>>();
  for (const [index, route] of routes.entries()) {
    progress(
      `bench: cold starts: ${index + 1}/${routes.length} ${route.operationId} (bundling, ${runs} pairs)`,
    );
    const own = await bundle(route.operationId, route.handler);
    built.set(route.operationId, own);
    const events = await eventsFor(route);
    await coldStart(own.file, typeof events === 'function' ? await events() : events, env);
    const contender = { name: route.operationId, bundle: own, event: events };
    cold.push(...(await measureAgainstFloor([contender], floor.file, env, runs)));
  }
  const floorAll = spread(cold.map((row) => row.floor.median));
  const kb = (bytes: number) => (bytes / 1024).toFixed(0);
  out(
    `\n## Cold start against the floor\n\nPer function, ${runs} pairs of fresh processes, floor then function, each importing its bundle and invoking it once against DynamoDB Local (init = import + first call) with its sample request (infra/local/sample-event.ts), which gets past the credential and validation to the operation (test/integration/bundles.test.ts checks it for every function): an agent route's record is one made for the run (bench/sample-items.ts; a new one for each of a delete's cold starts), so agent reads and changes answer a success and pay their write; the photo functions name a demo photo, so they read its bytes (and the import derives a photo from it); and the console, edits and OAuth functions name what bench/sample-fixtures.ts made for them through the stack (an edit session, a staged or applied changeset, a change to undo, a blog schedule, a consent request, an approved code, a grant, an admin's invite with the invited person's token; a new one for each of their cold starts where the request uses it up). So each answers its success, but for the authorization endpoint's 302 to the consent page and the well-known catch-all's 404, which are theirs. The floor is bench/baseline-handler.ts (one GetItem), bundled with the functions' options (infra/bundling.ts, ${kb(floor.bytes)} KB). Figures are median (p25–p75); × floor is the median of the per-pair ratios. Its medians across functions: ${formatSpread(floorAll)} ms.\n`,
  );
  out('| function | bundle KB | init ms | import ms | floor init ms (same pairs) | × floor | status |');
  out('|---|---:|---:|---:|---:|---:|---:|');
  for (const row of cold) {
    out(
      `| ${row.name} | ${kb(row.bytes)} | ${formatSpread(row.init)} | ${formatSpread(row.import)} | ${formatSpread(row.floor)} | ${formatSpread(row.ratio, 2)} | ${row.status} |`,
    );
  }
  const kindOf = new Map(routes.map((route) => [route.operationId, coldKindOf(route)]));
  const ratios = cold.map((row) => row.ratio.median);
  const meanRatio = mean(ratios);
  const worst = cold.reduce((a, b) => (b.ratio.median > a.ratio.median ? b : a));
  const meanInit = mean(cold.map((row) => row.init.median));
  const above = cold
    .filter((row) => row.ratio.median > COLD_TARGET.max)
    .map((row) => `${row.name} ${row.ratio.median.toFixed(2)}×`);
  out(
    `\nMean over ${cold.length} functions: ${meanRatio.toFixed(2)}× the floor (${meanInit.toFixed(0)} ms against ${floorAll.median.toFixed(0)} ms), target ≤ ${COLD_TARGET.mean}×: ${met(meanRatio <= COLD_TARGET.mean)}. Worst: ${worst.name} ${worst.ratio.median.toFixed(2)}× (${worst.init.median.toFixed(0)} ms against ${worst.floor.median.toFixed(0)} ms); target: no function above ${COLD_TARGET.max}×: ${met(worst.ratio.median <= COLD_TARGET.max)}${above.length > 1 ? ` (above it: ${above.join(', ')})` : ''}. This is one run's verdict: the target is met when two consecutive runs meet both.`,
  );

  out(
    `\nBy kind of function (bench/cold-kinds.ts): the mean of their ratios; the mean of their milliseconds over the floor (each function's median over its pairs of its init minus the floor's), which, unlike a ratio, does not move when the floor and the functions gain or lose the same code; and which are above ${COLD_TARGET.max}×.\n`,
  );
  out(`| kind | functions | mean × floor | mean ms over the floor | above ${COLD_TARGET.max}× |`);
  out('|---|---:|---:|---:|---|');
  for (const kind of COLD_KINDS) {
    const rows = cold.filter((row) => kindOf.get(row.name) === kind);
    if (rows.length === 0) continue;
    const kindMean = mean(rows.map((row) => row.ratio.median));
    const overFloor = mean(rows.map(msOverFloor));
    const over = rows.filter((row) => row.ratio.median > COLD_TARGET.max).map((row) => row.name);
    out(
      `| ${kind} | ${rows.length} | ${kindMean.toFixed(2)} | ${overFloor.toFixed(0)} | ${over.join(', ') || 'none'} |`,
    );
  }
  out(`| all | ${cold.length} | ${meanRatio.toFixed(2)} | ${mean(cold.map(msOverFloor)).toFixed(0)} | |`);

  // The requirements alone, without the pipeline: how near the floor an agent read, change and
  // create can get.
  for (const probe of REQUIREMENT_PROBES) {
    const route = routeTable.find((candidate) => candidate.operationId === probe.operationId);
    const own = built.get(probe.operationId);
    if (!route || !own) continue;
    progress(`bench: cold starts: ${probe.operationId} against its requirements alone…`);
    const calls = await bundle(`${probe.operationId}-calls`, probe.calls.entry);
    const bare = await bundle(`${probe.operationId}-bare`, probe.entry);
    const pairs = Math.max(runs, 31);
    // A read and an update leave their record, and each create makes a new one: one event serves
    // every round.
    const event = sampleEvent(route, credentials, {
      ...extras,
      ...(await sampleFor(harness, route, itemIds)),
    });
    await coldStart(calls.file, {}, env);
    await coldStart(bare.file, event, env);
    const [callsRow, bareRow, fullRow] = await measureAgainstFloor(
      [
        { name: 'calls', bundle: calls, event: {} },
        { name: 'bare', bundle: bare, event },
        { name: probe.operationId, bundle: own, event },
      ],
      floor.file,
      env,
      pairs,
    );
    if (!callsRow || !bareRow || !fullRow) throw new Error('three contenders, three rows');
    const figure = (row: ColdFigures) =>
      `${formatSpread(row.ratio, 2)}× (${row.init.median.toFixed(0)} ms against ${row.floor.median.toFixed(0)} ms, status ${row.status})`;
    // Neighbours in the same round: the difference is what the pipeline adds, without the floor's noise.
    const pipeline = spread(fullRow.inits.map((ms, round) => ms - (bareRow.inits[round] ?? ms)));
    out(
      `\n${probe.operationId}, step by step (${pairs} rounds; in each, every step after a floor of its own): its DynamoDB calls alone in the floor (${probe.calls.entry}: ${probe.calls.what}) ${figure(callsRow)}; its requirements alone (${probe.entry}: ${probe.work}, without middy, the Powertools logger or the error envelope) ${figure(bareRow)}; ${probe.operationId} itself ${figure(fullRow)}. ${probe.operationId} over the requirements alone, round by round (what the pipeline adds): ${formatSpread(pipeline)} ms.`,
    );
  }

  // Why a credential's lookup and the operation's read go out as one call (lib/db/item-reader.ts).
  progress('bench: cold starts: two reads side by side against one BatchGetItem…');
  const twoGets = await bundle('floor-two-gets', 'bench/probes/floor-two-gets.ts');
  const batchGet = await bundle('floor-batch-get', 'bench/probes/floor-batch-get.ts');
  const readPairs = Math.max(runs, 21);
  const [twoRow, batchRow] = await measureAgainstFloor(
    [
      { name: 'two GetItems', bundle: twoGets, event: {} },
      { name: 'one BatchGetItem', bundle: batchGet, event: {} },
    ],
    floor.file,
    env,
    readPairs,
  );
  if (!twoRow || !batchRow) throw new Error('two contenders, two rows');
  const over = (row: ColdFigures) =>
    `${formatSpread(row.ratio, 2)}× (${formatSpread(spread(row.inits.map((ms, round) => ms - (row.floorInits[round] ?? ms))))} ms over it, round by round)`;
  out(
    `\nTwo reads in one cold start (${readPairs} rounds against the floor): the floor with two GetItems sent side by side (bench/probes/floor-two-gets.ts) ${over(twoRow)}; with the same two keys in one BatchGetItem (floor-batch-get.ts) ${over(batchRow)}. Hence an agent key's lookup and the record read beside it go out as one BatchGetItem.`,
  );
  return cold;
}
