import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { type Json, type Resources, synthesize } from '../support/cdk-app.ts';

// The region CDK's CLI would tell the app (the console pages' stacks read it).
vi.stubEnv('CDK_DEFAULT_REGION', 'eu-west-1');

/** Synthesizing the whole app takes ~10 s alone, more on a busy machine. */
const SYNTH_TIMEOUT = 180_000;

/** The types that hold a customer's data, or what makes it reachable (the mail identity). */
const STATEFUL_TYPES = [
  'AWS::DynamoDB::GlobalTable',
  'AWS::S3::Bucket',
  'AWS::SecretsManager::Secret',
  'AWS::Cognito::UserPool',
  'AWS::SES::EmailIdentity',
];

/** Each stateful resource of a template, by type: its DeletionPolicy and UpdateReplacePolicy. */
const policiesOf = (template: Template) => {
  const resources = template.toJSON().Resources as Resources;
  return Object.fromEntries(
    STATEFUL_TYPES.map((type) => [
      type,
      Object.values(resources)
        .filter((resource) => resource.Type === type)
        .map((resource) => [resource.DeletionPolicy, resource.UpdateReplacePolicy]),
    ]),
  );
};

/**
 * Each function of the templates with the retention, in days, of the log group it writes to: one
 * of its own template that its logging configuration names. A function without one would log into
 * `/aws/lambda/<name>`, which Lambda creates on first run and keeps forever (undefined here).
 */
const functionLogRetention = (templates: Map<string, Template>) =>
  [...templates].flatMap(([stack, template]) => {
    const resources = template.toJSON().Resources as Resources;
    return Object.entries(resources)
      .filter(([, resource]) => resource.Type === 'AWS::Lambda::Function')
      .map(([id, fn]) => {
        const logGroup: Json = fn.Properties?.LoggingConfig?.LogGroup;
        const group = logGroup?.Ref ? resources[logGroup.Ref] : undefined;
        const days = group?.Type === 'AWS::Logs::LogGroup' ? group.Properties?.RetentionInDays : undefined;
        return [`${stack}/${id}`, days] as const;
      });
  });

const parameterValue = (template: Template, name: string) => {
  const found = Object.values(template.findResources('AWS::SSM::Parameter')).find(
    (parameter) => parameter.Properties.Name === name,
  );
  return found?.Properties.Value;
};

describe('what the stateful stack keeps, with retainData (the default)', () => {
  let stateful: Template;

  beforeAll(() => {
    stateful = synthesize({
      sesSender: 'no-reply@mail.customer.test',
      sesIdentity: 'mail.customer.test',
    }).template('-Stateful');
  }, SYNTH_TIMEOUT);

  it('keeps every stateful resource on update and delete; a failed first create takes back what deletion protection allows', () => {
    const keptExceptOnCreate = ['RetainExceptOnCreate', 'Retain'];
    // Deletion protection would make the rollback of a failed create fail: these are kept always.
    const keptAlways = ['Retain', 'Retain'];
    expect(policiesOf(stateful)).toEqual({
      'AWS::DynamoDB::GlobalTable': [keptAlways],
      'AWS::S3::Bucket': [keptExceptOnCreate],
      'AWS::SecretsManager::Secret': [keptExceptOnCreate, keptExceptOnCreate, keptExceptOnCreate],
      'AWS::Cognito::UserPool': [keptAlways],
      'AWS::SES::EmailIdentity': [keptExceptOnCreate],
    });
  });

  it('names the SES identity it created and the managed login prefix for npm run deploy to compare', () => {
    expect(parameterValue(stateful, '/business-platform/dev/ses-identity-created')).toBe(
      'mail.customer.test',
    );
    expect(parameterValue(stateful, '/business-platform/dev/cognito-domain-prefix')).toEqual({
      'Fn::Join': ['', ['business-platform-dev-', { Ref: 'AWS::AccountId' }]],
    });
  });
});

describe('what the stateful stack keeps, with other settings', () => {
  it(
    'deletes every stateful resource with the stack when retainData is false; an imported identity is not its own',
    () => {
      const stateful = synthesize({
        sesSender: 'no-reply@mail.customer.test',
        sesIdentity: 'mail.customer.test',
        retainData: 'false',
        sesIdentityMode: 'import',
        consoleSignIn: 'srp',
      }).template('-Stateful');
      const deleted = ['Delete', 'Delete'];
      expect(policiesOf(stateful)).toEqual({
        'AWS::DynamoDB::GlobalTable': [deleted],
        'AWS::S3::Bucket': [deleted],
        'AWS::SecretsManager::Secret': [deleted, deleted, deleted],
        'AWS::Cognito::UserPool': [deleted],
        'AWS::SES::EmailIdentity': [],
      });
      expect(parameterValue(stateful, '/business-platform/dev/ses-identity-created')).toBe('none');
      // No managed login, no domain to keep.
      expect(parameterValue(stateful, '/business-platform/dev/cognito-domain-prefix')).toBeUndefined();
    },
    SYNTH_TIMEOUT,
  );
});

describe('how long the functions’ logs are kept', () => {
  it(
    "gives every function a log group that expires its lines, CDK's own handlers included",
    () => {
      // The default stacks, and those that bring CDK's handlers: the console pages (bucket
      // deployment, auto-delete of the pages' objects) and a throwaway stage (auto-delete of photos).
      const apps = [
        synthesize(),
        synthesize({
          stage: 'trial',
          sesSender: 'no-reply@mail.customer.test',
          consolePages: 'true',
          retainData: 'false',
        }),
      ];
      const retention = apps.flatMap((app) => functionLogRetention(app.templates));
      const handlers = retention.filter(([name]) =>
        /Custom(S3AutoDeleteObjects|CDKBucketDeployment)/.test(name),
      );
      expect(handlers.map(([name]) => name.replace(/[0-9A-F]{8,}$/, '…'))).toEqual([
        'BusinessPlatform-trial-ConsolePages/CustomS3AutoDeleteObjectsCustomResourceProviderHandler…',
        'BusinessPlatform-trial-Stateful/CustomS3AutoDeleteObjectsCustomResourceProviderHandler…',
        'BusinessPlatform-trial-ConsolePagesFiles/CustomCDKBucketDeployment…',
      ]);
      expect(retention.length).toBeGreaterThan(2 * 90);
      expect(retention.filter(([, days]) => days !== 30)).toEqual([]);
    },
    2 * SYNTH_TIMEOUT,
  );
});
