import * as ssm from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';

/**
 * What one stack hands another, as SSM parameters instead of CloudFormation exports: an export
 * cannot change while another stack imports it, so switching the issuer, replacing an API or
 * moving the table would block the deployment. A stack reads a parameter's current value at each
 * of its deployments (a `AWS::SSM::Parameter::Value<String>` parameter), so every stack updates on
 * its own; `cdk deploy --all` deploys the writer first (explicit stack dependencies). A few tell
 * `npm run deploy`'s preflight what the deployed stacks hold (`ses-identity-created`,
 * `cognito-domain-prefix`: infra/deploy-preflight.ts).
 */
export type ParameterKey =
  | 'table-name'
  | 'table-arn'
  | 'table-stream-arn'
  | 'event-bus-name'
  | 'event-bus-arn'
  | 'events-publisher-function-name'
  | 'events-dead-letter-queue-name'
  | 'webhook-deliverer-function-name'
  | 'webhook-sweeper-function-name'
  | 'webhook-queue-name'
  | 'webhook-dead-letter-queue-name'
  | 'photos-bucket-name'
  | 'photos-bucket-arn'
  | 'internal-api-keys-arn'
  | 'oauth-signing-key-arn'
  | 'cursor-secret-arn'
  | 'jwt-issuer'
  | 'jwt-audience'
  | 'jwt-profile'
  | 'jwt-key-set'
  | 'user-pool-id'
  | 'user-pool-arn'
  | 'console-api-id'
  | 'assistant-api-id'
  | 'alarm-topic-arn'
  | 'console-pages-url'
  | 'console-pages-bucket-name'
  | 'console-pages-distribution-id'
  | 'pre-sign-up-function-name'
  | 'post-confirmation-function-name'
  | 'pre-token-generation-function-name'
  | 'ses-identity-created'
  | 'cognito-domain-prefix';

export const parameterName = (stage: string, key: ParameterKey) => `/business-platform/${stage}/${key}`;

export function publishParameter(scope: Construct, stage: string, key: ParameterKey, value: string): void {
  new ssm.StringParameter(scope, `Parameter-${key}`, {
    parameterName: parameterName(stage, key),
    stringValue: value,
    description: 'Read by the other stacks of the Business Platform Service at deployment',
  });
}

/** The parameter's value at this stack's deployment (a token in the template). */
export const readParameter = (scope: Construct, stage: string, key: ParameterKey): string =>
  ssm.StringParameter.valueForStringParameter(scope, parameterName(stage, key));
