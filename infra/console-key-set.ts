import { CustomResource, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { functionName } from './function-name.ts';
import { FUNCTION_LOG_RETENTION } from './handler-log-groups.ts';
import { NodeFunction } from './node-function.ts';

/**
 * The console issuer's public key set, fetched at deployment by a custom resource
 * (functions/deploy/console-key-set.ts) and handed to the console functions as JWT_KEY_SET, so
 * their cold starts verify tokens without a request to the issuer (lib/auth/remote-key-set.ts).
 * Its only property is the JWKS URL: a new user pool fetches again. `value` is the set as JSON,
 * `{"keys":[]}` when the fetch failed or the set was too large (the functions then fetch it).
 */
export class ConsoleKeySet extends Construct {
  readonly value: string;

  constructor(scope: Construct, id: string, props: { issuer: string; stage: string }) {
    super(scope, id);
    // No grants: it reads a public URL and writes its own log group.
    const onEvent = new NodeFunction(this, 'Fetch', {
      functionName: functionName(props.stage, 'ConsoleKeySet'),
      entry: 'functions/deploy/console-key-set.ts',
      description: "Deployment: fetches the console issuer's public key set for JWT_KEY_SET",
      timeoutSeconds: 15,
      environment: {},
    });
    // CDK's provider framework: a function of its own between CloudFormation and ours. Like ours it
    // gets its own log group and a role that may write only there (no managed policy), and CDK
    // lets it invoke our function.
    const providerLogs = new logs.LogGroup(this, 'ProviderLogs', {
      retention: FUNCTION_LOG_RETENTION,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const providerRole = new iam.Role(this, 'ProviderRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    });
    providerLogs.grantWrite(providerRole);
    const provider = new cr.Provider(this, 'Provider', {
      onEventHandler: onEvent.function,
      logGroup: providerLogs,
      frameworkOnEventRole: providerRole,
    });
    // cdk-nag names the function by its logical id.
    const onEventId = Stack.of(this).getLogicalId(onEvent.function.node.defaultChild as lambda.CfnFunction);
    Validations.of(providerRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${onEventId}.Arn>:*]`,
      reason:
        "CDK's provider framework may invoke the key set function and its versions (`<arn>:*`): that one function, nothing else.",
    });
    const resource = new CustomResource(this, 'Resource', {
      serviceToken: provider.serviceToken,
      resourceType: 'Custom::ConsoleKeySet',
      properties: { JwksUrl: `${props.issuer}/.well-known/jwks.json` },
    });
    this.value = resource.getAttString('KeySet');
  }
}
