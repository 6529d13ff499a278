import { execFile } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { build } from 'esbuild';
import { bundleFiles, writeBundleFiles } from '../infra/bundle-files.ts';
import { BUNDLE_FILE, esbuildOptions } from '../infra/bundling.ts';
import { ROOT_DIR } from '../infra/local/paths.ts';
import { type Spread, spread } from './stats.ts';

const run = promisify(execFile);

/**
 * Bundle one handler exactly as CDK does (infra/bundling.ts), with the files its bundle carries
 * beside it (infra/bundle-files.ts); returns the file, its size (the JS bundle's alone) and the
 * source files that ended up in it.
 */
export async function buildBundle(
  entry: string,
  outDir: string,
): Promise<{ file: string; bytes: number; modules: string[] }> {
  const file = join(outDir, BUNDLE_FILE);
  const { metafile } = await build({
    ...esbuildOptions,
    entryPoints: [join(ROOT_DIR, entry)],
    outfile: file,
    logLevel: 'error',
    metafile: true,
  });
  await writeBundleFiles(outDir, bundleFiles(entry));
  const output = Object.entries(metafile.outputs).find(([path]) => path.endsWith(BUNDLE_FILE))?.[1];
  return { file, bytes: statSync(file).size, modules: Object.keys(output?.inputs ?? {}) };
}

export interface ColdStart {
  importMs: number;
  invokeMs: number;
  statusCode: number | undefined;
  /** The first call's answer body, as the function returned it. */
  body: string | undefined;
}

// Runs in a fresh `node`: load the bundle (the Lambda init phase), then invoke it once. A
// CommonJS bundle is `require`d, as Lambda's runtime does (importing it would add a scan of it).
const CHILD = `
const { readFileSync } = await import('node:fs');
const { createRequire } = await import('node:module');
const bundle = process.env.BENCH_BUNDLE;
const started = performance.now();
const module = bundle.endsWith('.cjs') ? createRequire(import.meta.url)(bundle) : await import(bundle);
const imported = performance.now();
const event = JSON.parse(readFileSync(process.env.BENCH_EVENT, 'utf8'));
const context = { functionName: 'bench', awsRequestId: crypto.randomUUID(), getRemainingTimeInMillis: () => 10000 };
const result = await module.handler(event, context);
const invoked = performance.now();
// Exit once the answer is written: a pipe takes a large body in several writes.
process.stdout.write(JSON.stringify({ importMs: imported - started, invokeMs: invoked - imported, statusCode: result?.statusCode, body: result?.body }), () => process.exit(0));
`;

/**
 * One cold start of a bundle in a new process with the given environment; its directory is its
 * LAMBDA_TASK_ROOT, as in Lambda, where it finds the files it carries.
 */
export async function coldStart(
  bundle: string,
  event: APIGatewayProxyEventV2 | Record<string, never>,
  env: Record<string, string>,
  /** Variables of this process's environment the child must not see. */
  unset: readonly string[] = [],
): Promise<ColdStart> {
  const eventFile = `${bundle}.event.json`;
  writeFileSync(eventFile, JSON.stringify(event));
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !unset.includes(name)));
  const child = run(process.execPath, ['--input-type=module', '-e', CHILD], {
    env: {
      ...inherited,
      ...env,
      LAMBDA_TASK_ROOT: dirname(bundle),
      BENCH_BUNDLE: bundle,
      BENCH_EVENT: eventFile,
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    },
    timeout: 30_000,
  });
  const { stdout } = await child.catch((error: Error & { stderr?: string }) => {
    // Node prints the failing line of a minified bundle (one line of ~500 KB) before the error.
    const readable = (error.stderr ?? '').split('\n').filter((line) => line.length < 500);
    throw new Error(`${bundle} failed in a fresh process:\n${readable.join('\n')}`);
  });
  return JSON.parse(stdout) as ColdStart;
}

type Event = Parameters<typeof coldStart>[1];

export interface ColdFigures {
  name: string;
  bytes: number;
  status: number | undefined;
  /** import + first call, ms, per fresh process. */
  init: Spread;
  import: Spread;
  /** The floor's init in the processes run just before each of this function's. */
  floor: Spread;
  /** This function's init over the floor's of the same pair, per pair. */
  ratio: Spread;
  /** Each run's init (import + first call), ms, in the order they ran. */
  inits: number[];
  /** The floor's init in the process run just before each of those. */
  floorInits: number[];
}

/**
 * A bundle to measure against the floor, with the event it is invoked with, or what makes a new
 * one for each cold start (a delete needs an item of its own each time).
 */
export interface Contender {
  name: string;
  bundle: { file: string; bytes: number };
  event: Event | (() => Promise<Event>);
}

/**
 * Cold starts interleaved with the floor's (floor, function, floor, function…, each a fresh
 * process), so both see the same machine load and each ratio compares a pair taken seconds apart.
 * Several contenders take turns within each round (floor, A, floor, B, floor, A…), so they are
 * compared under the same load too. All bundles are built with the same options (infra/bundling.ts).
 */
export async function measureAgainstFloor(
  contenders: Contender[],
  floorFile: string,
  env: Record<string, string>,
  runs: number,
): Promise<ColdFigures[]> {
  const own = contenders.map((): ColdStart[] => []);
  const floor = contenders.map((): ColdStart[] => []);
  for (let i = 0; i < runs; i++) {
    for (const [index, contender] of contenders.entries()) {
      floor[index]?.push(await coldStart(floorFile, {}, env));
      const event = typeof contender.event === 'function' ? await contender.event() : contender.event;
      own[index]?.push(await coldStart(contender.bundle.file, event, env));
    }
  }
  const init = (r: ColdStart) => r.importMs + r.invokeMs;
  return contenders.map(({ name, bundle }, index) => {
    const mine = own[index] ?? [];
    const floors = floor[index] ?? [];
    const failed = mine.find((r) => r.statusCode === undefined || r.statusCode >= 500);
    if (failed) throw new Error(`${name} answered ${failed.statusCode} during the bench`);
    return {
      name,
      bytes: bundle.bytes,
      status: mine[0]?.statusCode,
      init: spread(mine.map(init)),
      import: spread(mine.map((r) => r.importMs)),
      floor: spread(floors.map(init)),
      ratio: spread(mine.map((r, i) => init(r) / init(floors[i] ?? r))),
      inits: mine.map(init),
      floorInits: floors.map(init),
    };
  });
}
