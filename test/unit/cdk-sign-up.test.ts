import { App } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ContextError, readServiceContext } from '../../infra/service-context.ts';
import { type Json, synthesize } from '../support/cdk-app.ts';

/** Synthesizing the whole app takes ~10 s alone, more on a busy machine. */
const SYNTH_TIMEOUT = 180_000;

/** The trigger function whose description starts so, and every DynamoDB action its role may take, on what. */
function triggerOf(stateful: Template, description: string) {
  const resources = stateful.toJSON().Resources as Record<string, Json>;
  const [functionId, fn] =
    Object.entries(resources).find(
      ([, resource]) =>
        resource.Type === 'AWS::Lambda::Function' &&
        String(resource.Properties.Description).startsWith(description),
    ) ?? [];
  if (!fn) throw new Error(`no function described ${description}`);
  const roleId = fn.Properties.Role['Fn::GetAtt'][0];
  const statements = Object.values(resources)
    .filter(
      (resource: Json) =>
        resource.Type === 'AWS::IAM::Policy' &&
        resource.Properties.Roles.some((role: Json) => role.Ref === roleId),
    )
    .flatMap((policy: Json) => policy.Properties.PolicyDocument.Statement)
    .filter((statement: Json) =>
      [statement.Action].flat().some((action: string) => action.startsWith('dynamodb:')),
    );
  return { functionId: functionId as string, environment: fn.Properties.Environment.Variables, statements };
}

describe('invite-only sign-up in the user pool', () => {
  let stateful: Template;

  beforeAll(() => {
    stateful = synthesize({ bootstrapAdminEmail: 'First.Admin@Example.org' }).template('-Stateful');
  }, SYNTH_TIMEOUT);

  it('lets people sign up themselves, through a Pre Sign-up and a Post Confirmation trigger', () => {
    const preSignUp = triggerOf(stateful, 'Cognito Pre Sign-up');
    const postConfirmation = triggerOf(stateful, 'Cognito Post Confirmation');

    stateful.hasResourceProperties('AWS::Cognito::UserPool', {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: false },
      LambdaConfig: Match.objectLike({
        PreSignUp: { 'Fn::GetAtt': [preSignUp.functionId, 'Arn'] },
        PostConfirmation: { 'Fn::GetAtt': [postConfirmation.functionId, 'Arn'] },
      }),
      // Cognito still verifies the address with its code: the trigger never does.
      AutoVerifiedAttributes: ['email'],
    });
  });

  it('gives Pre Sign-up the table and the bootstrap address, and lets it only read the table', () => {
    const { environment, statements } = triggerOf(stateful, 'Cognito Pre Sign-up');

    expect(environment).toMatchObject({
      TABLE_NAME: { Ref: expect.any(String) },
      BOOTSTRAP_ADMIN_EMAIL: 'first.admin@example.org',
    });
    expect(statements).toEqual([
      expect.objectContaining({
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:Query'],
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^Table/), 'Arn'] },
      }),
    ]);
  });

  it('lets Post Confirmation read pending memberships and turn them into memberships, nothing else', () => {
    const { environment, statements } = triggerOf(stateful, 'Cognito Post Confirmation');

    expect(environment).toMatchObject({ TABLE_NAME: { Ref: expect.any(String) } });
    expect(environment.BOOTSTRAP_ADMIN_EMAIL).toBeUndefined();
    expect(statements).toEqual([
      expect.objectContaining({
        Effect: 'Allow',
        Action: ['dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^Table/), 'Arn'] },
      }),
    ]);
  });
});

describe('context bootstrapAdminEmail', () => {
  const read = (value: string | undefined) =>
    readServiceContext(new App({ context: value === undefined ? {} : { bootstrapAdminEmail: value } }));

  it('is optional, and kept normalised', () => {
    expect(read(undefined).bootstrapAdminEmail).toBeUndefined();
    expect(read(' Admin@Example.org ').bootstrapAdminEmail).toBe('admin@example.org');
  });

  it('refuses what is not an e-mail address', () => {
    expect(() => read('admin')).toThrow(ContextError);
    expect(() => read('admin')).toThrow('context bootstrapAdminEmail must be an e-mail address');
  });
});
