import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, vi } from 'vitest';
import { bundleFiles, writeBundleFiles } from '../../infra/bundle-files.ts';

/**
 * For the tests of a file that run a function's code from source: a LAMBDA_TASK_ROOT holding the
 * files that function's bundle carries beside its code, written by the writer CDK runs
 * (infra/bundle-files.ts), as the local harness writes its own at start.
 */
export function useBundleFilesTaskRoot(entry: string): void {
  const taskRoot = mkdtempSync(join(tmpdir(), 'bps-task-root-'));
  beforeAll(async () => {
    await writeBundleFiles(taskRoot, bundleFiles(entry));
    vi.stubEnv('LAMBDA_TASK_ROOT', taskRoot);
  }, 60_000);
  afterAll(() => rmSync(taskRoot, { recursive: true, force: true }));
}
