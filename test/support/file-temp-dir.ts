import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * Every test file gets a temporary directory of its own, removed when the file ends: TMPDIR points
 * into it while the file runs (os.tmpdir() reads TMPDIR on each call), so whatever the file's code
 * puts in "the temporary directory" goes with it. CDK apps made without an outdir write their
 * cloud assembly to a fresh `cdk.out*` folder there (about 3 MB each); without this, a run of the
 * suite left about 140 of them behind.
 */
const outer = process.env.TMPDIR;
const directory = mkdtempSync(join(tmpdir(), 'bps-test-'));
process.env.TMPDIR = directory;

afterAll(() => {
  if (outer === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = outer;
  rmSync(directory, { recursive: true, force: true });
});
