/**
 * What `npm run deploy` checks before it bundles anything: AWS credentials and a region (in
 * seconds, not after minutes of bundling), then what synth cannot see and the account would
 * reject or quietly limit. Each check answers in one line; a refusal stops the deploy, a warning
 * does not.
 */
import { GetAccountSettingsCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import {
  GetAccountCommand,
  GetEmailIdentityCommand,
  NotFoundException,
  type SESv2Client,
} from '@aws-sdk/client-sesv2';
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

/**
 * The SES side. With `cognitoEmail: ses` the user pool sends from our identity: CloudFormation
 * refuses a user pool whose identity is not verified, and in the SES sandbox every sign-up code to
 * an unverified address would be refused, so both stop the deploy. An imported identity that does
 * not exist or is not verified only makes invites fail: a warning.
 */
export async function mailFindings(ses: SESv2Client, context: ServiceContext): Promise<PreflightFindings> {
  const refusals: string[] = [];
  const warnings: string[] = [];
  const identity = await ses
    .send(new GetEmailIdentityCommand({ EmailIdentity: context.sesIdentity }))
    .catch((error: unknown) => {
      if (error instanceof NotFoundException) return undefined;
      throw error;
    });
  const verified = identity?.VerifiedForSendingStatus === true;
  if (context.cognitoEmail === 'ses') {
    if (!verified) {
      refusals.push(
        `cognitoEmail is ses, but the SES identity ${context.sesIdentity} is ${identity ? 'not verified yet' : 'not there yet'}: deploy with cognitoEmail cognito first, verify the identity (docs/deploy.md, Mail), then switch`,
      );
    }
    const { ProductionAccessEnabled } = await ses.send(new GetAccountCommand({}));
    if (!ProductionAccessEnabled) {
      refusals.push(
        'cognitoEmail is ses, but SES is still in the sandbox, where it refuses every unverified recipient: keep cognitoEmail cognito until SES grants production access',
      );
    }
  }
  if (context.sesIdentityMode === 'import' && !verified) {
    warnings.push(
      `sesIdentityMode is import, but the SES identity ${context.sesIdentity} is ${identity ? 'not verified' : 'not in this account and region'}: invite e-mails will fail until it is`,
    );
  }
  return { refusals, warnings };
}

/** Account checks through the AWS APIs: CDK bootstrap, the Lambda concurrency quota, SES. */
export async function accountFindings(
  clients: { lambda: LambdaClient; ssm: SSMClient; ses: SESv2Client },
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
  const mail = await mailFindings(clients.ses, context);
  return { refusals: [...refusals, ...mail.refusals], warnings: [...warnings, ...mail.warnings] };
}
