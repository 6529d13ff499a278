import { describe, expect, it, vi } from 'vitest';
import { accountFindings, settingFindings } from '../../infra/deploy-preflight.ts';
import { readServiceContext } from '../../infra/service-context.ts';
import { newApp } from '../support/cdk-app.ts';
import { ACCOUNT_ID, type Account, clients } from '../support/preflight-account.ts';

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
