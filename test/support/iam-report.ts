import { describeIamReport, type IamReport } from '../../infra/local/iam/enforcer.ts';

/**
 * A harness's IAM decisions over its life (docs/harness.md, 'IAM enforcement'): it checked
 * calls, and refused none. Thrown from the integration run's global teardown, a refusal fails the
 * run (vitest exits 1) even when the test that caused it passed on the answer it got; a test that
 * starts a harness of its own checks its report when it stops it.
 */
export function checkIamReport(
  report: IamReport | undefined,
  options: { print?: boolean; callsExpected?: boolean } = {},
): void {
  if (!report) throw new Error('The harness stopped without reporting its IAM decisions');
  if (options.print) {
    console.log(describeIamReport(report));
    const actions = Object.entries(report.byAction).sort(([a], [b]) => a.localeCompare(b));
    console.log(
      `IAM requests by action: ${actions.map(([action, count]) => `${action} ${count}`).join(', ')}`,
    );
  }
  // A run of files that never call the shared harness checks nothing there; a harness of a test's own is called.
  if (options.callsExpected !== false && report.calls.evaluated === 0)
    throw new Error('IAM enforcement checked no call: is it installed?');
  if (report.calls.denied > 0) {
    throw new Error(
      `IAM enforcement refused ${report.calls.denied} calls that AWS would refuse:\n${report.denials.join('\n')}`,
    );
  }
}
