import { describe, expect, it } from 'vitest';
import { localTemplateResolver } from '../../infra/local/iam/local-account.ts';
import { extractPolicies } from '../../infra/local/iam/role-policies.ts';
import type { TemplateSet } from '../../infra/local/iam/template-resolver.ts';

/**
 * Resource policies read from templates as CloudFormation declares them, on a hand-made template
 * (the app has no event bus yet): an event bus's policy is one statement per resource, and the
 * bus's policy is all of them together.
 */

const BUS_ARN = 'arn:aws:events:us-east-1:000000000000:event-bus/business-platform-local';

const templates: TemplateSet = new Map([
  [
    'BusinessPlatform-local-Events',
    {
      Resources: {
        Bus1234ABCD: { Type: 'AWS::Events::EventBus', Properties: { Name: 'business-platform-local' } },
        ConsumerAccess: {
          Type: 'AWS::Events::EventBusPolicy',
          Properties: {
            EventBusName: { Ref: 'Bus1234ABCD' },
            StatementId: 'consumer-reads',
            Statement: {
              Effect: 'Allow',
              Principal: { AWS: 'arn:aws:iam::111122223333:root' },
              Action: 'events:PutRule',
              Resource: { 'Fn::GetAtt': ['Bus1234ABCD', 'Arn'] },
            },
          },
        },
        NoForeignPuts: {
          Type: 'AWS::Events::EventBusPolicy',
          Properties: {
            EventBusName: { 'Fn::GetAtt': ['Bus1234ABCD', 'Arn'] },
            StatementId: 'no-foreign-puts',
            Statement: {
              Effect: 'Deny',
              Principal: '*',
              Action: 'events:PutEvents',
              Resource: { 'Fn::GetAtt': ['Bus1234ABCD', 'Arn'] },
              Condition: { StringNotEquals: { 'aws:PrincipalAccount': { Ref: 'AWS::AccountId' } } },
            },
          },
        },
      },
    },
  ],
]);

describe('resource policies in the templates', () => {
  it("reads an event bus's policy from its statements, by name or ARN, resolved in the local account", () => {
    const policy = extractPolicies(localTemplateResolver(templates), 'local').resourcePolicyFor(BUS_ARN);
    expect(policy?.Statement).toEqual([
      {
        Sid: 'consumer-reads',
        Effect: 'Allow',
        Principal: { AWS: 'arn:aws:iam::111122223333:root' },
        Action: 'events:PutRule',
        Resource: BUS_ARN,
      },
      {
        Sid: 'no-foreign-puts',
        Effect: 'Deny',
        Principal: '*',
        Action: 'events:PutEvents',
        Resource: BUS_ARN,
        Condition: { StringNotEquals: { 'aws:PrincipalAccount': '000000000000' } },
      },
    ]);
  });
});
