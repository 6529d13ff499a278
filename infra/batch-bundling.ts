import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ILocalBundling } from 'aws-cdk-lib';
import { buildSync } from 'esbuild';
import { writeBundleFilesSync } from './bundle-files.ts';
import { esbuildOptions } from './bundling.ts';
import { ROOT_DIR } from './local/paths.ts';

/**
 * How CDK gets each function's bundle: every function (each file of functions/<area>/) is built
 * in one esbuild run the first time CDK stages one of them, and each function's asset is then
 * copied from it. CDK's NodejsFunction runs esbuild once per function instead, parsing the same
 * SDK and libraries again each time: 126 s for the 112 functions where one build takes about 12 s.
 * The options are the bench's (infra/bundling.ts), so what it measures is what is deployed. A
 * stack whose bundling CDK skips (`aws:cdk:bundling-stacks`) never starts the build.
 */
export class BatchBundling implements ILocalBundling {
  constructor(private readonly entry: string) {}

  tryBundle(outputDir: string): boolean {
    const built = builtBundles(this.entry);
    for (const file of ['index.js', 'index.js.map'])
      copyFileSync(join(built, bundleKey(this.entry), file), join(outputDir, file));
    // The files the bundle carries beside its code (infra/bundle-files.ts).
    writeBundleFilesSync(this.entry, outputDir);
    return true;
  }
}

/** Every function's entry, relative to the repository root. */
function functionEntries(): string[] {
  const root = join(ROOT_DIR, 'functions');
  return readdirSync(root, { withFileTypes: true })
    .filter((area) => area.isDirectory())
    .flatMap((area) =>
      readdirSync(join(root, area.name))
        .filter((file) => file.endsWith('.ts'))
        .map((file) => `functions/${area.name}/${file}`),
    )
    .sort();
}

/** `functions/a/b.ts` → `functions/a/b`: one folder per function in the build, its code `index.js`. */
const bundleKey = (entry: string) => entry.replace(/\.ts$/, '');

/** The one build of every function, with the entries it holds: listed and built once a process. */
let batch: { entries: readonly string[]; dir: string } | undefined;

/** The folder holding every function's bundle, or one of its own for an entry elsewhere. */
function builtBundles(entry: string): string {
  if (!batch) {
    const entries = functionEntries();
    batch = { entries, dir: build(entries) };
  }
  return batch.entries.includes(entry) ? batch.dir : build([entry]);
}

function build(entries: readonly string[]): string {
  const outdir = mkdtempSync(join(tmpdir(), 'bps-bundles-'));
  process.once('exit', () => rmSync(outdir, { recursive: true, force: true }));
  buildSync({
    ...esbuildOptions,
    entryPoints: Object.fromEntries(entries.map((entry) => [`${bundleKey(entry)}/index`, entry])),
    outdir,
    logLevel: 'warning',
  });
  return outdir;
}
