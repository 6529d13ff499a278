import { ACMClient, ResourceNotFoundException } from '@aws-sdk/client-acm';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { NotFoundException, SESv2Client } from '@aws-sdk/client-sesv2';
import { ParameterNotFound, SSMClient } from '@aws-sdk/client-ssm';
import { expect } from 'vitest';
import { CDK_BOOTSTRAP_PARAMETER } from '../../infra/deploy-preflight.ts';

// The AWS account the deploy preflight's tests talk to: each client's answers are the ones AWS
// would give for the account described, injected into the real SDK clients.

/**
 * No emulator here serves Lambda's GetAccountSettings, SSM or ACM, so AWS's documented answers are
 * injected with an SDK middleware that stands in for the network ("answered as AWS would").
 */
function answeredAsAwsWould<C extends LambdaClient | SSMClient | SESv2Client | ACMClient>(
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

/**
 * ACM in one region: it knows only the certificates of that region, as AWS's does (another
 * region's ARN is not found there).
 */
const acmIn = (region: string, certificates: Record<string, Record<string, unknown>>, asked: string[]) =>
  answeredAsAwsWould(new ACMClient({ region }), (command, input) => {
    expect(command).toBe('DescribeCertificateCommand');
    const arn = String(input.CertificateArn);
    asked.push(arn);
    const certificate = arn.split(':')[3] === region ? certificates[arn] : undefined;
    return certificate
      ? { Certificate: { CertificateArn: arn, ...certificate } }
      : new ResourceNotFoundException({ message: `Could not find certificate ${arn}.`, $metadata: {} });
  });

export interface Account {
  bootstrapped: boolean;
  concurrency: number;
  /** The SES identity: missing, or its verification state. */
  identity?: 'missing' | 'pending' | 'verified';
  /** The configuration set the identity sends through by default, if any. */
  identityConfigurationSet?: string;
  sesProductionAccess?: boolean;
  /** SSM parameters the deployed stacks wrote, by name: what an earlier deploy left. */
  deployed?: Record<string, string>;
  /** ACM's DescribeCertificate answer by certificate ARN; an ARN not listed does not exist. */
  certificates?: Record<string, Record<string, unknown>>;
  /** Every certificate ARN ACM was asked about, in order. */
  asked?: string[];
}

export const ACCOUNT_ID = '123456789012';

export const clients = ({
  bootstrapped,
  concurrency,
  identity = 'missing',
  identityConfigurationSet,
  sesProductionAccess = true,
  deployed = {},
  certificates = {},
  asked = [],
}: Account) => ({
  lambda: answeredAsAwsWould(new LambdaClient({ region: 'eu-west-1' }), () => ({
    AccountLimit: { ConcurrentExecutions: concurrency, UnreservedConcurrentExecutions: concurrency },
  })),
  ssm: answeredAsAwsWould(new SSMClient({ region: 'eu-west-1' }), (command, input) => {
    expect(command).toBe('GetParameterCommand');
    const name = String(input.Name);
    const parameters: Record<string, string> = {
      ...deployed,
      ...(bootstrapped ? { [CDK_BOOTSTRAP_PARAMETER]: '30' } : {}),
    };
    const value = parameters[name];
    return value === undefined
      ? new ParameterNotFound({ message: 'not found', $metadata: {} })
      : {
          Parameter: {
            Name: name,
            Value: value,
            ARN: `arn:aws:ssm:eu-west-1:${ACCOUNT_ID}:parameter${name}`,
          },
        };
  }),
  ses: answeredAsAwsWould(new SESv2Client({ region: 'eu-west-1' }), (command) => {
    if (command === 'GetAccountCommand') return { ProductionAccessEnabled: sesProductionAccess };
    if (identity === 'missing')
      return new NotFoundException({ message: 'Email identity does not exist.', $metadata: {} });
    return {
      IdentityType: 'DOMAIN',
      VerifiedForSendingStatus: identity === 'verified',
      ...(identityConfigurationSet ? { ConfigurationSetName: identityConfigurationSet } : {}),
    };
  }),
  acm: acmIn('eu-west-1', certificates, asked),
  cloudFrontAcm: acmIn('us-east-1', certificates, asked),
});
