import type { TestProject } from 'vitest/node';
import { type HarnessInfo, startHarnessProcess } from '../../infra/local/harness-process.ts';
import { startDocumentHost } from './document-host.ts';
import { checkIamReport } from './iam-report.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    harness: HarnessInfo;
    /** Origin of the loopback server that plays OAuth clients' websites (document-host.ts). */
    documentHost: string;
    /** The same server over https (a certificate the harness trusts). */
    documentHostHttps: string;
    /** The same server's http on another loopback address: another host. */
    documentHostOther: string;
  }
}

/** One harness (and one set of emulators) for the integration run; each test arranges its own tenant. */
export default async function setup(project: TestProject) {
  const documentHost = await startDocumentHost();
  // The harness's SSRF guard may fetch from these three loopback origins, and from nothing else
  // local; the harness process trusts the https one's certificate.
  process.env.SAFE_FETCH_ALLOW = [
    documentHost.origin,
    documentHost.httpsOrigin,
    documentHost.otherHostOrigin,
  ].join(',');
  process.env.NODE_EXTRA_CA_CERTS = documentHost.caFile;
  const harness = await startHarnessProcess();
  project.provide('harness', harness.info);
  project.provide('documentHost', documentHost.origin);
  project.provide('documentHostHttps', documentHost.httpsOrigin);
  project.provide('documentHostOther', documentHost.otherHostOrigin);
  return async () => {
    const report = await harness.stop();
    await documentHost.stop();
    // Every SDK call of every function behind the shared harness, checked against its role.
    checkIamReport(report, { print: true, callsExpected: false });
  };
}
