import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Resources, synthesize } from '../support/cdk-app.ts';

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
