/**
 * What `npm run deploy` checks before it bundles anything: AWS credentials and a region (in
 * seconds, not after minutes of bundling), then what synth cannot see and the account would
 * reject or quietly limit. Each check answers in one line; a refusal stops the deploy, a warning
 * does not.
 */
import { GetAccountSettingsCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import { GetParameterCommand, ParameterNotFound, type SSMClient } from '@aws-sdk/client-ssm';
import type { ServiceContext } from './service-context.ts';

export interface PreflightFindings {
  /** Why the deploy cannot go on. */
  refusals: string[];
  /** What the person should know, and may fix later. */
  warnings: string[];
}

/** The SSM parameter `cdk bootstrap` writes (default qualifier); a deploy without it fails late. */
export const CDK_BOOTSTRAP_PARAMETER = '/cdk-bootstrap/hnb659fds/version';

/**
 * The most requests the stage lets run at the same moment: each of the two HTTP APIs admits its
 * burst at once, and each request is one function invocation.
 */
export const concurrentRequestsAdmitted = (context: ServiceContext): number =>
  2 * context.throttle.burstLimit;

/** Account checks through the AWS APIs: CDK bootstrap, the Lambda concurrency quota. */
export async function accountFindings(
  clients: { lambda: LambdaClient; ssm: SSMClient },
  context: ServiceContext,
  region: string,
): Promise<PreflightFindings> {
  const refusals: string[] = [];
  const warnings: string[] = [];
  try {
    await clients.ssm.send(new GetParameterCommand({ Name: CDK_BOOTSTRAP_PARAMETER }));
  } catch (error) {
    if (!(error instanceof ParameterNotFound)) throw error;
    refusals.push(`the account is not bootstrapped for CDK in ${region}: run npx cdk bootstrap first`);
  }
  const { AccountLimit } = await clients.lambda.send(new GetAccountSettingsCommand({}));
  const quota = AccountLimit?.ConcurrentExecutions;
  const admitted = concurrentRequestsAdmitted(context);
  if (quota !== undefined && quota < admitted) {
    warnings.push(
      `the account runs at most ${quota} Lambda functions at once, below the ${admitted} concurrent requests the stage's throttle admits (2 APIs × throttleBurst ${context.throttle.burstLimit}): requests beyond it fail with 503. Ask for more (Service Quotas → AWS Lambda → Concurrent executions) or lower throttleBurst`,
    );
  }
  return { refusals, warnings };
}
