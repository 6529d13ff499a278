import { LambdaClient } from '@aws-sdk/client-lambda';
import { NotFoundException, SESv2Client } from '@aws-sdk/client-sesv2';
import { ParameterNotFound, SSMClient } from '@aws-sdk/client-ssm';
import { describe, expect, it } from 'vitest';
import { accountFindings, CDK_BOOTSTRAP_PARAMETER } from '../../infra/deploy-preflight.ts';
import { readServiceContext } from '../../infra/service-context.ts';
import { newApp } from '../support/cdk-app.ts';

/**
 * No emulator here serves Lambda's GetAccountSettings or SSM, so AWS's documented answers are
 * injected with an SDK middleware that stands in for the network ("answered as AWS would").
 */
function answeredAsAwsWould<C extends LambdaClient | SSMClient | SESv2Client>(
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

interface Account {
  bootstrapped: boolean;
  concurrency: number;
  /** The SES identity: missing, or its verification state. */
  identity?: 'missing' | 'pending' | 'verified';
  sesProductionAccess?: boolean;
}

const clients = ({
  bootstrapped,
  concurrency,
  identity = 'verified',
  sesProductionAccess = true,
}: Account) => ({
  lambda: answeredAsAwsWould(new LambdaClient({ region: 'eu-west-1' }), () => ({
    AccountLimit: { ConcurrentExecutions: concurrency, UnreservedConcurrentExecutions: concurrency },
  })),
  ssm: answeredAsAwsWould(new SSMClient({ region: 'eu-west-1' }), (_command, input) => {
    expect(input.Name).toBe(CDK_BOOTSTRAP_PARAMETER);
    return bootstrapped
      ? { Parameter: { Name: CDK_BOOTSTRAP_PARAMETER, Value: '30' } }
      : new ParameterNotFound({ message: 'not found', $metadata: {} });
  }),
  ses: answeredAsAwsWould(new SESv2Client({ region: 'eu-west-1' }), (command) => {
    if (command === 'GetAccountCommand') return { ProductionAccessEnabled: sesProductionAccess };
    if (identity === 'missing')
      return new NotFoundException({ message: 'Email identity does not exist.', $metadata: {} });
    return { IdentityType: 'DOMAIN', VerifiedForSendingStatus: identity === 'verified' };
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

  it('refuses Cognito mail through SES before the identity is verified, or while SES is in the sandbox', async () => {
    const sesMail = readServiceContext(
      newApp({
        cognitoEmail: 'ses',
        sesSender: 'no-reply@mail.customer.test',
        sesIdentity: 'mail.customer.test',
      }),
    );
    const pending = await accountFindings(
      clients({ bootstrapped: true, concurrency: 1000, identity: 'pending' }),
      sesMail,
      'eu-west-1',
    );
    expect(pending.refusals).toEqual([
      expect.stringMatching(/identity mail.customer.test is not verified yet/),
    ]);

    const sandboxed = await accountFindings(
      clients({ bootstrapped: true, concurrency: 1000, sesProductionAccess: false }),
      sesMail,
      'eu-west-1',
    );
    expect(sandboxed.refusals).toEqual([expect.stringMatching(/SES is still in the sandbox/)]);

    // With Cognito's own sender, neither matters to the user pool.
    const cognitoMail = await accountFindings(
      clients({ bootstrapped: true, concurrency: 1000, identity: 'missing', sesProductionAccess: false }),
      context,
      'eu-west-1',
    );
    expect(cognitoMail).toEqual({ refusals: [], warnings: [] });
  });

  it('warns when an imported SES identity is not there, since invites would fail', async () => {
    const imported = readServiceContext(
      newApp({ sesIdentityMode: 'import', sesIdentity: 'mail.customer.test' }),
    );
    const { refusals, warnings } = await accountFindings(
      clients({ bootstrapped: true, concurrency: 1000, identity: 'missing' }),
      imported,
      'eu-west-1',
    );
    expect(refusals).toEqual([]);
    expect(warnings).toEqual([
      expect.stringMatching(/identity mail.customer.test is not in this account and region/),
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
