import { AsyncLocalStorage } from 'node:async_hooks';
import { IamEnforcer } from '../../infra/local/iam/enforcer.ts';
import { localCallScope } from '../../infra/local/iam/local-account.ts';
import { installIamEnforcement } from '../../infra/local/iam/sdk-enforcement.ts';
import { localTemplates } from '../../infra/local/iam/template-cache.ts';

/**
 * IAM enforcement for handlers a test runs in its own process (in-process-route.ts, the Cognito
 * triggers), as the harness enforces it in each function's worker: every SDK call made while a
 * function runs is checked against that function's role in the synthesized templates, and a
 * refusal is answered as AWS answers it. Calls the test makes itself (arranging data) run as no
 * function and pass unchecked. One installation per test process.
 */

const runningAs = new AsyncLocalStorage<string>();
let installed: Promise<IamEnforcer> | undefined;

function enforcerInThisProcess(): Promise<IamEnforcer> {
  installed ??= localTemplates().then(({ templates }) => {
    const enforcer = new IamEnforcer(templates);
    installIamEnforcement({
      scope: localCallScope(enforcer.scopeSetup),
      clock: () => undefined,
      ask: async (question) => {
        const name = runningAs.getStore();
        return name === undefined ? { allowed: true } : enforcer.authorize(name, question);
      },
    });
    return enforcer;
  });
  return installed;
}

/**
 * Run `work` as the function `name` (operation id or trigger name) under IAM enforcement; throws
 * after it when any of its calls was refused, so a permission the role lacks fails the test that
 * needed it, whatever the handler answered.
 */
export async function runAsFunction<T>(name: string, work: () => Promise<T>): Promise<T> {
  const enforcer = await enforcerInThisProcess();
  const before = enforcer.report().calls.denied;
  const result = await runningAs.run(name, work);
  const after = enforcer.report();
  if (after.calls.denied > before) {
    throw new Error(
      `IAM enforcement refused ${after.calls.denied - before} calls of ${name} that AWS would refuse:\n${after.denials.slice(-(after.calls.denied - before)).join('\n')}`,
    );
  }
  return result;
}
