/**
 * What `npm run deploy` checks before it bundles anything: AWS credentials and a region (in
 * seconds, not after minutes of bundling), then what synth cannot see and the account would
 * reject or quietly limit. Each check answers in one line; a refusal stops the deploy, a warning
 * does not.
 */
import { type ACMClient, DescribeCertificateCommand, ResourceNotFoundException } from '@aws-sdk/client-acm';
import { GetAccountSettingsCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import {
  GetAccountCommand,
  GetEmailIdentityCommand,
  type GetEmailIdentityCommandOutput,
  NotFoundException,
  type SESv2Client,
} from '@aws-sdk/client-sesv2';
import { GetParameterCommand, ParameterNotFound, type SSMClient } from '@aws-sdk/client-ssm';
import { certificateRegion } from './api-domain-settings.ts';
import { defaultCognitoDomainPrefix } from './cognito-sign-in.ts';
import { CLOUDFRONT_CERTIFICATE_REGION } from './console-pages-settings.ts';
import { mailConfigurationSetName } from './mail.ts';
import { parameterName } from './parameters.ts';
import type { ServiceContext } from './service-context.ts';

export interface PreflightFindings {
  /** Why the deploy cannot go on. */
  refusals: string[];
  /** What the person should know, and may fix later. */
  warnings: string[];
}

/**
 * What the settings alone say, before any AWS call. Outside `dev` a stage without `alarmEmail`
 * deploys its alarms onto a topic nobody reads: said, not refused, since someone may subscribe
 * to the topic by other means.
 */
export function settingFindings(context: ServiceContext): PreflightFindings {
  const warnings: string[] = [];
  if (context.stage !== 'dev' && context.alarmEmail === undefined) {
    warnings.push(
      `alarmEmail is not set: the stage's alarms will notify nobody. Set "alarmEmail" in stages/${context.stage}.json (and confirm the mail SNS sends), or subscribe to the alarms topic yourself`,
    );
  }
  return { refusals: [], warnings };
}

/** The SSM parameter `cdk bootstrap` writes (default qualifier); a deploy without it fails late. */
export const CDK_BOOTSTRAP_PARAMETER = '/cdk-bootstrap/hnb659fds/version';

/**
 * The most requests the stage lets run at the same moment: each of the two HTTP APIs admits its
 * burst at once, and each request is one function invocation.
 */
export const concurrentRequestsAdmitted = (context: ServiceContext): number =>
  2 * context.throttle.burstLimit;

/** A parameter the deployed stacks wrote (infra/parameters.ts): its value and ARN, or none. */
async function deployedParameter(
  ssm: SSMClient,
  name: string,
): Promise<{ value: string | undefined; arn: string | undefined } | undefined> {
  const found = await ssm.send(new GetParameterCommand({ Name: name })).catch((error: unknown) => {
    if (error instanceof ParameterNotFound) return undefined;
    throw error;
  });
  return found && { value: found.Parameter?.Value, arn: found.Parameter?.ARN };
}

/**
 * Whether the identity the account has is the one this stage's stateful stack created, so that
 * deploying again updates it: the stack names it in its `ses-identity-created` parameter. A
 * stateful stack deployed before it wrote that parameter is known by what it gave its identity:
 * the stage's configuration set as the identity's default.
 */
async function createdByThisStage(
  ssm: SSMClient,
  context: ServiceContext,
  identity: GetEmailIdentityCommandOutput,
): Promise<boolean> {
  const created = await deployedParameter(ssm, parameterName(context.stage, 'ses-identity-created'));
  if (created) return created.value === context.sesIdentity;
  return identity.ConfigurationSetName === mailConfigurationSetName(context.stage);
}

/**
 * The SES side. With `sesIdentityMode: create` CloudFormation fails on an identity the account
 * already has (SES answers AlreadyExists), unless it is the stack's own: refused, naming
 * `import`. With `cognitoEmail: ses` the user pool sends from our identity: CloudFormation
 * refuses a user pool whose identity is not verified, and in the SES sandbox every sign-up code to
 * an unverified address would be refused, so both stop the deploy. An imported identity that does
 * not exist or is not verified only makes invites fail: a warning.
 */
export async function mailFindings(
  { ses, ssm }: { ses: SESv2Client; ssm: SSMClient },
  context: ServiceContext,
): Promise<PreflightFindings> {
  const refusals: string[] = [];
  const warnings: string[] = [];
  const identity = await ses
    .send(new GetEmailIdentityCommand({ EmailIdentity: context.sesIdentity }))
    .catch((error: unknown) => {
      if (error instanceof NotFoundException) return undefined;
      throw error;
    });
  const verified = identity?.VerifiedForSendingStatus === true;
  if (
    context.sesIdentityMode === 'create' &&
    identity &&
    !(await createdByThisStage(ssm, context, identity))
  ) {
    refusals.push(
      `sesIdentityMode is create, but the SES identity ${context.sesIdentity} already exists in this account and region (${verified ? 'verified' : 'not verified'}), and CloudFormation cannot create it again: set "sesIdentityMode": "import" in stages/${context.stage}.json to send from it as it is`,
    );
  }
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

/**
 * The managed login's Cognito domain cannot change: a user pool has one domain, and CloudFormation
 * replaces a domain by creating the new one first, which the pool refuses, so the update fails
 * after minutes. The stateful stack writes the prefix it gave (`cognito-domain-prefix`); a setting
 * that would change it is refused here. The parameter's ARN names the account, which the default
 * prefix holds.
 */
export async function signInDomainFindings(
  ssm: SSMClient,
  context: ServiceContext,
): Promise<PreflightFindings> {
  const refusals: string[] = [];
  if (context.externalIssuer || context.consoleSignIn !== 'hosted') return { refusals, warnings: [] };
  const deployed = await deployedParameter(ssm, parameterName(context.stage, 'cognito-domain-prefix'));
  const account = deployed?.arn?.split(':')[4];
  const wanted =
    context.cognitoDomainPrefix ?? (account ? defaultCognitoDomainPrefix(context.stage, account) : undefined);
  if (deployed?.value !== undefined && wanted !== undefined && wanted !== deployed.value) {
    refusals.push(
      `cognitoDomainPrefix ${wanted} would change the managed login's domain, but the deployed user pool keeps the one it has (${deployed.value}) and CloudFormation would fail the update: set "cognitoDomainPrefix": "${deployed.value}" in stages/${context.stage}.json`,
    );
  }
  return { refusals, warnings: [] };
}

/** Whether a certificate name (`api.example.com`, or `*.example.com` for one label) covers the domain. */
export const certificateCovers = (certificateName: string, domain: string): boolean => {
  const name = certificateName.toLowerCase();
  if (!name.startsWith('*.')) return name === domain;
  const dot = domain.indexOf('.');
  return dot > 0 && domain.slice(dot + 1) === name.slice(2);
};

/** Where a certificate must be, and why, for the names that use it. */
interface CertificateUse {
  arn: string;
  domains: string[];
  /** The ACM client of the region the certificate must be in. */
  acm: ACMClient;
  region: string;
  /** Why that region, said when the certificate is elsewhere. */
  regionRule: string;
}

/**
 * The custom domains' certificates, which CloudFormation would only reject after minutes of
 * deploying: each must be where its user takes it from (API Gateway's regional domains: the
 * deploy's region; CloudFront, for the console pages: us-east-1), exist in the account, be
 * ISSUED, and name every domain that uses it. An imported certificate is a warning: ACM does not
 * renew it.
 */
export async function certificateFindings(
  clients: { acm: ACMClient; cloudFrontAcm: ACMClient },
  context: ServiceContext,
  region: string,
): Promise<PreflightFindings> {
  const uses = new Map<string, CertificateUse>();
  const use = (arn: string, domain: string, rule: Omit<CertificateUse, 'arn' | 'domains'>) => {
    const key = `${rule.region} ${arn}`;
    const found = uses.get(key);
    if (found) found.domains.push(domain);
    else uses.set(key, { arn, domains: [domain], ...rule });
  };
  for (const domain of [context.assistantDomain, context.consoleApiDomain]) {
    if (domain) {
      use(domain.certificateArn, domain.domainName, {
        acm: clients.acm,
        region,
        regionRule: `this deploy goes to ${region}: API Gateway's regional custom domains take a certificate of their own region`,
      });
    }
  }
  const pages = context.consolePages?.domain;
  if (pages) {
    use(pages.certificateArn, pages.domainName, {
      acm: clients.cloudFrontAcm,
      region: CLOUDFRONT_CERTIFICATE_REGION,
      regionRule: `CloudFront, which serves the console pages, takes certificates of ${CLOUDFRONT_CERTIFICATE_REGION} only`,
    });
  }
  const findings = await Promise.all([...uses.values()].map(certificateUseFindings));
  return {
    refusals: findings.flatMap((finding) => finding.refusals),
    warnings: findings.flatMap((finding) => finding.warnings),
  };
}

async function certificateUseFindings({
  arn,
  domains,
  acm,
  region,
  regionRule,
}: CertificateUse): Promise<PreflightFindings> {
  const refusals: string[] = [];
  const warnings: string[] = [];
  const certificateAt = certificateRegion(arn);
  if (certificateAt !== region) {
    refusals.push(
      `the certificate ${arn} is in ${certificateAt}, but ${regionRule}; request or import one for ${domains.join(', ')} in ${region}`,
    );
    return { refusals, warnings };
  }
  const found = await acm
    .send(new DescribeCertificateCommand({ CertificateArn: arn }))
    .catch((error: unknown) => {
      if (error instanceof ResourceNotFoundException) return undefined;
      throw error;
    });
  const certificate = found?.Certificate;
  if (!certificate) {
    refusals.push(
      `the certificate ${arn} is not in this account and region: request it in ACM (${region}) for ${domains.join(', ')}`,
    );
    return { refusals, warnings };
  }
  if (certificate.Status !== 'ISSUED') {
    refusals.push(
      `the certificate ${arn} is ${certificate.Status}, not ISSUED${certificate.Status === 'PENDING_VALIDATION' ? ': publish the CNAME records ACM shows for its validation and wait until it is issued' : ''}`,
    );
  }
  const names = [certificate.DomainName, ...(certificate.SubjectAlternativeNames ?? [])].filter(
    (name): name is string => name !== undefined,
  );
  const uncovered = domains.filter((domain) => !names.some((name) => certificateCovers(name, domain)));
  if (uncovered.length > 0) {
    refusals.push(
      `the certificate ${arn} covers ${[...new Set(names)].join(', ')}, not ${uncovered.join(', ')}: request one that names ${uncovered.length > 1 ? 'them' : 'it'} (or a wildcard over ${uncovered.length > 1 ? 'them' : 'it'})`,
    );
  }
  if (certificate.Type === 'IMPORTED') {
    warnings.push(
      `the certificate ${arn} was imported: ACM does not renew it, so import its successor before ${certificate.NotAfter?.toISOString().slice(0, 10) ?? 'it expires'}`,
    );
  }
  return { refusals, warnings };
}

/**
 * Account checks through the AWS APIs: CDK bootstrap, the Lambda concurrency quota, SES, the
 * managed login's domain, certificates.
 */
export async function accountFindings(
  clients: {
    lambda: LambdaClient;
    ssm: SSMClient;
    ses: SESv2Client;
    acm: ACMClient;
    /** ACM in us-east-1, where CloudFront's certificates live. */
    cloudFrontAcm: ACMClient;
  },
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
  const found = [
    await mailFindings(clients, context),
    await signInDomainFindings(clients.ssm, context),
    await certificateFindings(clients, context, region),
  ];
  return {
    refusals: [...refusals, ...found.flatMap((finding) => finding.refusals)],
    warnings: [...warnings, ...found.flatMap((finding) => finding.warnings)],
  };
}
