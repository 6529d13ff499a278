import { ACMClient, ResourceNotFoundException } from '@aws-sdk/client-acm';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { NotFoundException, SESv2Client } from '@aws-sdk/client-sesv2';
import { ParameterNotFound, SSMClient } from '@aws-sdk/client-ssm';
import { describe, expect, it, vi } from 'vitest';
import {
  accountFindings,
  CDK_BOOTSTRAP_PARAMETER,
  certificateCovers,
  settingFindings,
} from '../../infra/deploy-preflight.ts';
import { readServiceContext } from '../../infra/service-context.ts';
import { newApp } from '../support/cdk-app.ts';

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

interface Account {
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

const ACCOUNT_ID = '123456789012';

const clients = ({
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

// npm run deploy reads the settings before CDK's CLI could tell the app a region: none is known.
vi.stubEnv('CDK_DEFAULT_REGION', '');

describe('deploy preflight, the settings alone', () => {
  const stage = (settings: Record<string, string>) =>
    readServiceContext(
      newApp({
        stage: 'prod',
        sesSender: 'no-reply@mail.customer.test',
        consoleUrl: 'https://console.customer.test',
        ...settings,
      }),
    );

  it('warns outside dev that a stage without alarmEmail deploys alarms that notify nobody', () => {
    expect(settingFindings(stage({}))).toEqual({
      refusals: [],
      warnings: [
        `alarmEmail is not set: the stage's alarms will notify nobody. Set "alarmEmail" in stages/prod.json (and confirm the mail SNS sends), or subscribe to the alarms topic yourself`,
      ],
    });
    expect(settingFindings(stage({ alarmEmail: 'oncall@customer.test' }))).toEqual({
      refusals: [],
      warnings: [],
    });
    expect(settingFindings(readServiceContext(newApp()))).toEqual({ refusals: [], warnings: [] });
  });
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
    // The identity the stage's stateful stack created on its first deploy.
    const deployed = { '/business-platform/dev/ses-identity-created': 'mail.customer.test' };
    const pending = await accountFindings(
      clients({ bootstrapped: true, concurrency: 1000, identity: 'pending', deployed }),
      sesMail,
      'eu-west-1',
    );
    expect(pending.refusals).toEqual([
      expect.stringMatching(/identity mail.customer.test is not verified yet/),
    ]);

    const sandboxed = await accountFindings(
      clients({
        bootstrapped: true,
        concurrency: 1000,
        identity: 'verified',
        deployed,
        sesProductionAccess: false,
      }),
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

  describe('an SES identity the account already has, with sesIdentityMode create', () => {
    const create = readServiceContext(
      newApp({ sesSender: 'no-reply@mail.customer.test', sesIdentity: 'mail.customer.test' }),
    );
    const findings = (account: Omit<Account, 'bootstrapped' | 'concurrency'>, context = create) =>
      accountFindings(clients({ bootstrapped: true, concurrency: 1000, ...account }), context, 'eu-west-1');
    const REFUSAL =
      'sesIdentityMode is create, but the SES identity mail.customer.test already exists in this account and region (verified), and CloudFormation cannot create it again: set "sesIdentityMode": "import" in stages/dev.json to send from it as it is';

    it('is refused on a first deploy, naming import; import takes it as it is', async () => {
      expect((await findings({ identity: 'verified' })).refusals).toEqual([REFUSAL]);
      const imported = readServiceContext(
        newApp({
          sesSender: 'no-reply@mail.customer.test',
          sesIdentity: 'mail.customer.test',
          sesIdentityMode: 'import',
        }),
      );
      expect(await findings({ identity: 'verified' }, imported)).toEqual({ refusals: [], warnings: [] });
    });

    it("is the stack's own on a second deploy of the stage: not refused", async () => {
      const deployed = { '/business-platform/dev/ses-identity-created': 'mail.customer.test' };
      expect(await findings({ identity: 'pending', deployed })).toEqual({ refusals: [], warnings: [] });
      expect(await findings({ identity: 'verified', deployed })).toEqual({ refusals: [], warnings: [] });
    });

    it('is refused when the deployed stack created another identity, or none (kept from before an import)', async () => {
      for (const created of ['mail.elsewhere.test', 'none']) {
        const deployed = { '/business-platform/dev/ses-identity-created': created };
        expect((await findings({ identity: 'verified', deployed })).refusals, created).toEqual([REFUSAL]);
      }
      // The identity still carries the stage's configuration set: the parameter has the last word.
      const retained = {
        identity: 'verified' as const,
        identityConfigurationSet: 'business-platform-dev',
        deployed: { '/business-platform/dev/ses-identity-created': 'none' },
      };
      expect((await findings(retained)).refusals).toEqual([REFUSAL]);
    });

    it('is known by its configuration set when the stateful stack predates the parameter', async () => {
      expect(
        await findings({ identity: 'verified', identityConfigurationSet: 'business-platform-dev' }),
      ).toEqual({ refusals: [], warnings: [] });
      expect(
        (await findings({ identity: 'verified', identityConfigurationSet: 'business-platform-prod' }))
          .refusals,
      ).toEqual([REFUSAL]);
    });
  });

  describe("the managed login's domain, which a user pool cannot change", () => {
    const PARAMETER = '/business-platform/dev/cognito-domain-prefix';
    const findings = (deployed: Record<string, string>, settings: Record<string, string> = {}) =>
      accountFindings(
        clients({ bootstrapped: true, concurrency: 1000, deployed }),
        readServiceContext(newApp(settings)),
        'eu-west-1',
      );

    it('refuses a prefix other than the deployed one', async () => {
      expect(
        (await findings({ [PARAMETER]: 'customer-sign-in' }, { cognitoDomainPrefix: 'customer-login' }))
          .refusals,
      ).toEqual([
        'cognitoDomainPrefix customer-login would change the managed login\'s domain, but the deployed user pool keeps the one it has (customer-sign-in) and CloudFormation would fail the update: set "cognitoDomainPrefix": "customer-sign-in" in stages/dev.json',
      ]);
    });

    it('refuses setting a prefix over the default one, and dropping a prefix for the default', async () => {
      const byDefault = `business-platform-dev-${ACCOUNT_ID}`;
      expect(
        (await findings({ [PARAMETER]: byDefault }, { cognitoDomainPrefix: 'customer-login' })).refusals,
      ).toEqual([expect.stringContaining(`keeps the one it has (${byDefault})`)]);
      expect((await findings({ [PARAMETER]: 'customer-login' })).refusals).toEqual([
        expect.stringContaining(`cognitoDomainPrefix ${byDefault} would change the managed login's domain`),
      ]);
    });

    it('lets the same prefix deploy again, set or by default, and any prefix on a first deploy', async () => {
      const none = { refusals: [], warnings: [] };
      expect(await findings({ [PARAMETER]: `business-platform-dev-${ACCOUNT_ID}` })).toEqual(none);
      expect(
        await findings({ [PARAMETER]: 'customer-login' }, { cognitoDomainPrefix: 'customer-login' }),
      ).toEqual(none);
      expect(await findings({}, { cognitoDomainPrefix: 'customer-login' })).toEqual(none);
      // Without managed login the stack keeps no domain.
      expect(
        await findings({ [PARAMETER]: 'customer-login' }, { consoleSignIn: 'srp', cognitoDomainPrefix: 'x' }),
      ).toEqual(none);
    });
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

describe("deploy preflight, the custom domains' certificates", () => {
  const account = '123456789012';
  const arn = (region: string, id: string) => `arn:aws:acm:${region}:${account}:certificate/${id}`;
  const SHARED = arn('eu-west-1', '0b5e2a4c-6d1f-4e8a-9c3b-7f2d1e0a5b6c');
  const OTHER = arn('eu-west-1', '1c6f3b5d-7e2a-4f9b-8d4c-8a3e2f1b6c7d');
  const issued = (...names: string[]) => ({
    Status: 'ISSUED',
    Type: 'AMAZON_ISSUED',
    DomainName: names[0],
    SubjectAlternativeNames: names,
  });
  const bothDomains = readServiceContext(
    newApp({
      domainName: 'api.customer.test',
      consoleApiDomainName: 'console-api.customer.test',
      certificateArn: SHARED,
    }),
  );
  const findings = (account: Omit<Account, 'bootstrapped' | 'concurrency'>, context = bothDomains) =>
    accountFindings(clients({ bootstrapped: true, concurrency: 1000, ...account }), context, 'eu-west-1');

  it('has nothing to say about an issued certificate that covers both names, asked about once', async () => {
    const asked: string[] = [];
    expect(
      await findings({ certificates: { [SHARED]: issued('customer.test', '*.customer.test') }, asked }),
    ).toEqual({ refusals: [], warnings: [] });
    expect(asked).toEqual([SHARED]);
  });

  it('asks ACM nothing when no domain is set', async () => {
    const asked: string[] = [];
    expect(await findings({ asked }, readServiceContext(newApp()))).toEqual({ refusals: [], warnings: [] });
    expect(asked).toEqual([]);
  });

  it('refuses a certificate still waiting for validation', async () => {
    const { refusals } = await findings({
      certificates: { [SHARED]: { ...issued('*.customer.test'), Status: 'PENDING_VALIDATION' } },
    });
    expect(refusals).toEqual([
      `the certificate ${SHARED} is PENDING_VALIDATION, not ISSUED: publish the CNAME records ACM shows for its validation and wait until it is issued`,
    ]);
  });

  it('refuses a certificate the account does not have', async () => {
    const { refusals } = await findings({ certificates: {} });
    expect(refusals).toEqual([
      `the certificate ${SHARED} is not in this account and region: request it in ACM (eu-west-1) for api.customer.test, console-api.customer.test`,
    ]);
  });

  it('refuses a certificate that does not name a domain using it; a wildcard covers one label only', async () => {
    const { refusals } = await findings({ certificates: { [SHARED]: issued('api.customer.test') } });
    expect(refusals).toEqual([
      `the certificate ${SHARED} covers api.customer.test, not console-api.customer.test: request one that names it (or a wildcard over it)`,
    ]);
    expect(certificateCovers('*.customer.test', 'api.customer.test')).toBe(true);
    expect(certificateCovers('*.customer.test', 'customer.test')).toBe(false);
    expect(certificateCovers('*.customer.test', 'eu.api.customer.test')).toBe(false);
    expect(certificateCovers('API.customer.test', 'api.customer.test')).toBe(true);
  });

  it('refuses a certificate of another region without asking ACM, since the regional domain could not use it', async () => {
    const elsewhere = arn('us-east-1', '2d7a4c6e-8f3b-4a0c-9e5d-9b4f3a2c7d8e');
    const asked: string[] = [];
    const { refusals } = await findings(
      { asked },
      readServiceContext(newApp({ domainName: 'api.customer.test', certificateArn: elsewhere })),
    );
    expect(refusals).toEqual([
      `the certificate ${elsewhere} is in us-east-1, but this deploy goes to eu-west-1: API Gateway's regional custom domains take a certificate of their own region; request or import one for api.customer.test in eu-west-1`,
    ]);
    expect(asked).toEqual([]);
  });

  it("checks the console API's own certificate, and warns that an imported one does not renew", async () => {
    const context = readServiceContext(
      newApp({
        domainName: 'api.customer.test',
        certificateArn: SHARED,
        consoleApiDomainName: 'console-api.customer.test',
        consoleCertificateArn: OTHER,
      }),
    );
    const asked: string[] = [];
    const { refusals, warnings } = await findings(
      {
        asked,
        certificates: {
          [SHARED]: issued('api.customer.test'),
          [OTHER]: {
            ...issued('console-api.customer.test'),
            Type: 'IMPORTED',
            NotAfter: new Date('2031-03-01T00:00:00Z'),
          },
        },
      },
      context,
    );
    expect(refusals).toEqual([]);
    expect(warnings).toEqual([
      `the certificate ${OTHER} was imported: ACM does not renew it, so import its successor before 2031-03-01`,
    ]);
    expect(asked).toEqual([SHARED, OTHER]);
  });

  describe('the console pages certificate, which CloudFront takes from us-east-1 only', () => {
    const PAGES = arn('us-east-1', '2d7a4c6e-8f1b-4a3c-9e5d-0b1c2d3e4f5a');
    const pagesOnTheirName = readServiceContext(
      newApp({
        consolePages: 'true',
        consoleDomainName: 'console.customer.test',
        consolePagesCertificateArn: PAGES,
      }),
    );

    it('asks ACM in us-east-1 about it, whatever region the deploy goes to', async () => {
      const asked: string[] = [];
      expect(
        await findings({ certificates: { [PAGES]: issued('*.customer.test') }, asked }, pagesOnTheirName),
      ).toEqual({ refusals: [], warnings: [] });
      expect(asked).toEqual([PAGES]);
    });

    it('refuses it missing, not issued, or not naming consoleDomainName', async () => {
      expect((await findings({ certificates: {} }, pagesOnTheirName)).refusals).toEqual([
        `the certificate ${PAGES} is not in this account and region: request it in ACM (us-east-1) for console.customer.test`,
      ]);
      const pending = { ...issued('console.customer.test'), Status: 'PENDING_VALIDATION' };
      expect((await findings({ certificates: { [PAGES]: pending } }, pagesOnTheirName)).refusals).toEqual([
        `the certificate ${PAGES} is PENDING_VALIDATION, not ISSUED: publish the CNAME records ACM shows for its validation and wait until it is issued`,
      ]);
      const elsewhere = { [PAGES]: issued('pages.customer.test') };
      expect((await findings({ certificates: elsewhere }, pagesOnTheirName)).refusals).toEqual([
        `the certificate ${PAGES} covers pages.customer.test, not console.customer.test: request one that names it (or a wildcard over it)`,
      ]);
    });

    it('checks it beside the API certificates, each in its own region', async () => {
      const asked: string[] = [];
      const context = readServiceContext(
        newApp({
          consolePages: 'true',
          consoleDomainName: 'console.customer.test',
          consolePagesCertificateArn: PAGES,
          domainName: 'api.customer.test',
          certificateArn: SHARED,
        }),
      );
      const { refusals } = await findings(
        {
          certificates: { [SHARED]: issued('api.customer.test'), [PAGES]: issued('api.customer.test') },
          asked,
        },
        context,
      );
      expect(refusals).toEqual([
        `the certificate ${PAGES} covers api.customer.test, not console.customer.test: request one that names it (or a wildcard over it)`,
      ]);
      expect(asked.sort()).toEqual([PAGES, SHARED].sort());
    });
  });
});
