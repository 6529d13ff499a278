import { LambdaClient } from '@aws-sdk/client-lambda';
import { ParameterNotFound, SSMClient } from '@aws-sdk/client-ssm';
import { describe, expect, it } from 'vitest';
import { accountFindings, CDK_BOOTSTRAP_PARAMETER } from '../../infra/deploy-preflight.ts';
import { readServiceContext } from '../../infra/service-context.ts';
import { newApp } from '../support/cdk-app.ts';

/**
 * No emulator here serves Lambda's GetAccountSettings or SSM, so AWS's documented answers are
 * injected with an SDK middleware that stands in for the network ("answered as AWS would").
 */
function answeredAsAwsWould<C extends LambdaClient | SSMClient>(
  client: C,
  answer: (command: string, input: Record<string, unknown>) => unknown,
): C {
  const seen: string[] = [];
  client.middlewareStack.add(
    (_next, context) => async (args) => {
      seen.push(context.commandName ?? '');
      const output = answer(String(context.commandName), args.input as Record<string, unknown>);
      if (output instanceof Error) throw output;
      return { output: { $metadata: {}, ...(output as object) }, response: {} };
    },
    { step: 'initialize', name: 'answeredAsAwsWould' },
  );
  return client;
}

const clients = (options: { bootstrapped: boolean; concurrency: number }) => ({
  lambda: answeredAsAwsWould(new LambdaClient({ region: 'eu-west-1' }), () => ({
    AccountLimit: {
      ConcurrentExecutions: options.concurrency,
      UnreservedConcurrentExecutions: options.concurrency,
    },
  })),
  ssm: answeredAsAwsWould(new SSMClient({ region: 'eu-west-1' }), (_command, input) => {
    expect(input.Name).toBe(CDK_BOOTSTRAP_PARAMETER);
    return options.bootstrapped
      ? { Parameter: { Name: CDK_BOOTSTRAP_PARAMETER, Value: '30' } }
      : new ParameterNotFound({ message: 'not found', $metadata: {} });
  }),
});

describe('deploy preflight, against the account', () => {
  const context = readServiceContext(newApp());

  it('has nothing to say about a bootstrapped account with the usual 1000 concurrent executions', async () => {
    expect(
      await accountFindings(clients({ bootstrapped: true, concurrency: 1000 }), context, 'eu-west-1'),
    ).toEqual({
      refusals: [],
      warnings: [],
    });
  });

  it('warns when a new account runs fewer functions at once than the throttle admits', async () => {
    const { warnings, refusals } = await accountFindings(
      clients({ bootstrapped: true, concurrency: 10 }),
      context,
      'eu-west-1',
    );
    expect(refusals).toEqual([]);
    expect(warnings).toEqual([
      expect.stringMatching(/at most 10 Lambda functions at once, below the 200 concurrent requests/),
    ]);
  });

  it('refuses an account that is not bootstrapped for CDK', async () => {
    const { refusals } = await accountFindings(
      clients({ bootstrapped: false, concurrency: 1000 }),
      context,
      'eu-west-1',
    );
    expect(refusals).toEqual([
      'the account is not bootstrapped for CDK in eu-west-1: run npx cdk bootstrap first',
    ]);
  });
});
