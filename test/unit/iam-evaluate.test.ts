import { describe, expect, it } from 'vitest';
import { InvalidIamRequestError, PolicyEvaluator } from '../../infra/local/iam/evaluate.ts';
import { LOCAL_ACCOUNT } from '../../infra/local/iam/local-account.ts';
import type {
  ExtractedPolicies,
  PolicyDocument,
  PolicyStatement,
} from '../../infra/local/iam/role-policies.ts';
import { TemplateResolver } from '../../infra/local/iam/template-resolver.ts';

const TABLE = 'arn:aws:dynamodb:us-east-1:000000000000:table/t';
const BUCKET = 'arn:aws:s3:::photos';

/** One function `fn` with these identity statements, and these resource policies by ARN. */
function evaluatorOf(statements: PolicyStatement[], resourcePolicies: Record<string, PolicyDocument> = {}) {
  const policies: ExtractedPolicies = {
    account: LOCAL_ACCOUNT,
    sesIdentities: [],
    functions: new Map([
      [
        'fn',
        {
          name: 'fn',
          functionName: 'bp-local-fn',
          stack: 'S',
          roleArn: 'arn:aws:iam::000000000000:role/fn-role',
          principalArn: 'arn:aws:sts::000000000000:assumed-role/fn-role/bp-local-fn',
          identityPolicies: [{ name: 'p', policy: { Version: '2012-10-17', Statement: statements } }],
          unresolved: [],
        },
      ],
    ]),
    resourcePolicies: Object.values(resourcePolicies),
    resourcePolicyFor: (arn) => resourcePolicies[arn.replace(/^(arn:aws:s3:::[^/]+).*$/, '$1')],
  };
  return new PolicyEvaluator(policies);
}

const leadingKeyRead = (key: string) => ({
  action: 'dynamodb:GetItem',
  resource: TABLE,
  context: { 'dynamodb:LeadingKeys': [key] },
});

describe('evaluating a function’s request', () => {
  it('allows what an identity statement allows, and says why it refuses the rest', async () => {
    const evaluator = evaluatorOf([{ Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: TABLE }]);
    expect(await evaluator.evaluate('fn', leadingKeyRead('A'))).toEqual({ allowed: true });
    expect(
      await evaluator.evaluate('fn', { action: 'dynamodb:PutItem', resource: TABLE, context: {} }),
    ).toEqual({
      allowed: false,
      reason: 'no-identity-policy-allows',
    });
    expect(evaluator.counts).toEqual({ evaluated: 2, allowed: 1, denied: 1 });
  });

  it('applies the condition keys the policies name (dynamodb:LeadingKeys), per request', async () => {
    const evaluator = evaluatorOf([
      {
        Effect: 'Allow',
        Action: 'dynamodb:GetItem',
        Resource: TABLE,
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['BUSINESS#*'] } },
      },
    ]);
    expect((await evaluator.evaluate('fn', leadingKeyRead('BUSINESS#1'))).allowed).toBe(true);
    expect((await evaluator.evaluate('fn', leadingKeyRead('USER#1'))).allowed).toBe(false);
    expect((await evaluator.evaluate('fn', leadingKeyRead('BUSINESS#2'))).allowed).toBe(true);
  });

  it('reports an explicit deny of an identity policy, and of the resource’s policy', async () => {
    const identityDeny = evaluatorOf([
      { Effect: 'Allow', Action: 's3:*', Resource: `${BUCKET}/*` },
      { Effect: 'Deny', Action: 's3:DeleteObject', Resource: `${BUCKET}/keep/*` },
    ]);
    expect(
      await identityDeny.evaluate('fn', {
        action: 's3:DeleteObject',
        resource: `${BUCKET}/keep/a`,
        context: {},
      }),
    ).toEqual({ allowed: false, reason: 'explicit-deny-in-identity-policy' });

    const resourceDeny = evaluatorOf([{ Effect: 'Allow', Action: 's3:GetObject', Resource: `${BUCKET}/*` }], {
      [BUCKET]: {
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Deny',
            Principal: { AWS: 'arn:aws:iam::000000000000:role/fn-role' },
            Action: 's3:GetObject',
            Resource: `${BUCKET}/private/*`,
          },
        ],
      },
    });
    expect(
      await resourceDeny.evaluate('fn', { action: 's3:GetObject', resource: `${BUCKET}/a`, context: {} }),
    ).toEqual({
      allowed: true,
    });
    expect(
      await resourceDeny.evaluate('fn', {
        action: 's3:GetObject',
        resource: `${BUCKET}/private/a`,
        context: {},
      }),
    ).toEqual({ allowed: false, reason: 'explicit-deny-in-resource-policy' });
  });

  it('lets a same-account resource policy grant on its own, as AWS does', async () => {
    const evaluator = evaluatorOf([], {
      [BUCKET]: {
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Principal: { AWS: 'arn:aws:iam::000000000000:role/fn-role' },
            Action: 's3:GetObject',
            Resource: `${BUCKET}/*`,
          },
        ],
      },
    });
    expect(
      (await evaluator.evaluate('fn', { action: 's3:GetObject', resource: `${BUCKET}/a`, context: {} }))
        .allowed,
    ).toBe(true);
  });

  it('refuses to evaluate a request the Service Authorization Reference does not know', async () => {
    const evaluator = evaluatorOf([{ Effect: 'Allow', Action: '*', Resource: '*' }]);
    await expect(
      evaluator.evaluate('fn', { action: 'dynamodb:PutItems', resource: TABLE, context: {} }),
    ).rejects.toThrow(InvalidIamRequestError);
    await expect(evaluator.evaluate('other', leadingKeyRead('A'))).rejects.toThrow(/no function other/);
  });
});

describe('reading a template in the local account', () => {
  const resolver = new TemplateResolver(
    new Map([
      [
        'A',
        {
          Resources: {
            TableCD117FA1: { Type: 'AWS::DynamoDB::GlobalTable' },
            Queue12345678: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'jobs' } },
            Published: {
              Type: 'AWS::SSM::Parameter',
              Properties: { Name: '/x/table', Value: { 'Fn::GetAtt': ['TableCD117FA1', 'Arn'] } },
            },
          },
          Outputs: {
            Q: { Value: { 'Fn::GetAtt': ['Queue12345678', 'Arn'] }, Export: { Name: 'queue-arn' } },
          },
        },
      ],
      [
        'B',
        {
          Parameters: { TableArn: { Type: 'AWS::SSM::Parameter::Value<String>', Default: '/x/table' } },
          Conditions: { IsLocal: { 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'us-east-1'] } },
        },
      ],
    ]),
    LOCAL_ACCOUNT,
    { Table: 'business-platform-local' },
  );

  it('resolves SSM parameters another stack publishes, exports, Sub, If and Select', () => {
    expect(resolver.resolve('B', { Ref: 'TableArn' })).toBe(
      'arn:aws:dynamodb:us-east-1:000000000000:table/business-platform-local',
    );
    expect(resolver.resolve('B', { 'Fn::ImportValue': 'queue-arn' })).toBe(
      'arn:aws:sqs:us-east-1:000000000000:jobs',
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's Fn::Sub syntax.
    expect(resolver.resolve('B', { 'Fn::Sub': ['${T}/index/*', { T: { Ref: 'TableArn' } }] })).toBe(
      'arn:aws:dynamodb:us-east-1:000000000000:table/business-platform-local/index/*',
    );
    expect(
      resolver.resolve('B', {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's Fn::Sub syntax.
        'Fn::Sub': 'arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}:identity/*',
      }),
    ).toBe('arn:aws:ses:us-east-1:000000000000:identity/*');
    expect(resolver.resolve('B', { 'Fn::If': ['IsLocal', 'yes', 'no'] })).toBe('yes');
    expect(resolver.resolve('B', { 'Fn::Select': [1, { 'Fn::Split': ['/', 'a/b/c'] }] })).toBe('b');
    expect(resolver.resolve('B', ['a', { Ref: 'AWS::NoValue' }])).toEqual(['a']);
    // DynamoDB Local labels a stream with the time it was turned on: any stream of the table.
    expect(resolver.resolve('A', { 'Fn::GetAtt': ['TableCD117FA1', 'StreamArn'] })).toBe(
      'arn:aws:dynamodb:us-east-1:000000000000:table/business-platform-local/stream/*',
    );
  });

  it('throws for what has no local value', () => {
    expect(() => resolver.resolve('B', { Ref: 'Missing' })).toThrow(/no parameter or resource Missing/);
    expect(() => resolver.resolve('A', { 'Fn::GetAtt': ['TableCD117FA1', 'TableId'] })).toThrow(
      /no local value/,
    );
  });
});
