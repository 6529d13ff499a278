import { CfnResource, type IAspect, RemovalPolicy } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { IConstruct } from 'constructs';

/** How long the logs of every function of the service are kept, ours and CDK's handlers'. */
export const FUNCTION_LOG_RETENTION = logs.RetentionDays.ONE_MONTH;

const LOG_GROUP_ID = 'HandlerLogs';

/**
 * Every Lambda function of the app writes to a log group that expires its lines. Ours make their
 * own (infra/node-function.ts, infra/console-key-set.ts). The handlers CDK adds for its own
 * constructs (emptying a bucket before it is deleted, copying the console pages into theirs)
 * would log into `/aws/lambda/<name>`, which Lambda creates on their first run and keeps forever;
 * this aspect gives each of them a log group of its stack, kept as long as ours, through the
 * function's logging configuration. Their roles may already write to any log group (CDK gives
 * them AWS's basic execution policy).
 */
export class HandlerLogGroups implements IAspect {
  visit(node: IConstruct): void {
    if (!CfnResource.isCfnResource(node) || node.cfnResourceType !== 'AWS::Lambda::Function') return;
    const scope = node.node.scope;
    if (!scope || scope.node.tryFindChild(LOG_GROUP_ID)) return;
    if (node instanceof lambda.CfnFunction) {
      // A function with a log group of its own (every NodeFunction) keeps it.
      const config = node.loggingConfig as lambda.CfnFunction.LoggingConfigProperty | undefined;
      if (config?.logGroup) return;
    }
    const logGroup = new logs.LogGroup(scope, LOG_GROUP_ID, {
      retention: FUNCTION_LOG_RETENTION,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // CDK's provider handlers are plain CfnResources, so the property is set the same way on both.
    node.addPropertyOverride('LoggingConfig.LogGroup', logGroup.logGroupName);
  }
}
