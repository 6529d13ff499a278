import type { TestProject } from 'vitest/node';
import { type HarnessInfo, startHarnessProcess } from '../../infra/local/harness-process.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    harness: HarnessInfo;
  }
}

/** One harness (and one set of emulators) for the integration run; each test arranges its own tenant. */
export default async function setup(project: TestProject) {
  const harness = await startHarnessProcess();
  project.provide('harness', harness.info);
  return () => harness.stop();
}
