import type { TestProject } from 'vitest/node';
import { type HarnessInfo, startHarnessProcess } from '../../infra/local/harness-process.ts';
import { startDocumentHost } from './document-host.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    harness: HarnessInfo;
    /** Origin of the loopback server that plays OAuth clients' websites (document-host.ts). */
    documentHost: string;
  }
}

/** One harness (and one set of emulators) for the integration run; each test arranges its own tenant. */
export default async function setup(project: TestProject) {
  const documentHost = await startDocumentHost();
  // The harness's SSRF guard may fetch from this one loopback origin, and from nothing else local.
  process.env.SAFE_FETCH_ALLOW = documentHost.origin;
  const harness = await startHarnessProcess();
  project.provide('harness', harness.info);
  project.provide('documentHost', documentHost.origin);
  return async () => {
    await harness.stop();
    await documentHost.stop();
  };
}
