/**
 * The console pages (console-pages/) on a private S3 bucket behind CloudFront, in two stacks,
 * because the site's URL and the console API's URL each need the other:
 *
 * - ConsolePagesStack, deployed first: the bucket, the distribution (origin access control, SPA
 *   fallback, https only) and its response headers policy. It needs nothing from the other stacks
 *   (the Cognito domain's name is known from the settings), and publishes the site's URL, which
 *   CloudFront chooses, as an SSM parameter: the stateful stack reads it for the console app
 *   client's callback and logout URLs, the API stack for the console API's CORS, the routes for
 *   CONSOLE_URL and the tool server's allowed origins. The "Console" app client serves the pages
 *   as it is: no second client, no second audience.
 * - ConsolePagesFilesStack, deployed last: the built files, and per deployment `config.json` (the
 *   console API's URL, the Cognito endpoints, the app client id) and `index.html`, then an
 *   invalidation.
 *
 * The CSP's connect-src is exact in the page's effective policy: the header (first stack) names
 * the console API's custom domain when there is one, else any execute-api host of the region (the
 * API's id comes later); index.html (last stack) carries a `<meta>` CSP naming exactly the API's
 * origin and the Cognito domain, and a browser enforces both policies, so only those remain.
 */
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as targets from 'aws-cdk-lib/aws-route53-targets';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import type { Construct } from 'constructs';
import { PAGE_FILES, pageShell } from '../console-pages/build.ts';
import { CONFIG_FILE, type ConsolePagesConfig } from '../console-pages/config.ts';
import { apiEndpoint } from './api-stack.ts';
import { CONSOLE_SIGN_IN_SCOPES, cognitoSignInUrl } from './cognito-sign-in.ts';
import { consolePagesAsset } from './console-pages-asset.ts';
import {
  connectSrcPolicy,
  consolePagesHeadersFor,
  responseHeadersPolicyProps,
  withMetaPolicy,
} from './console-pages-headers.ts';
import { publishParameter, readParameter } from './parameters.ts';
import type { ServiceContext } from './service-context.ts';

/** Paths that are no file (every page path) get the shell with 200, as the harness does. */
const SPA_FALLBACK_STATUSES = [403, 404] as const;

export class ConsolePagesStack extends Stack {
  readonly bucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;

  constructor(scope: Construct, id: string, props: StackProps & { context: ServiceContext }) {
    super(scope, id, props);
    const { context } = props;
    const domain = context.consolePages?.domain;

    // Only built files, written again by every deployment: nothing to keep when the stack goes.
    this.bucket = new s3.Bucket(this, 'Files', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'The bucket holds the public build of the console pages, read by CloudFront only and written by the deployment only; an access log would record nothing but those.',
    });

    // Header CSP: the console API's exact origin when it has a name; else the region's execute-api hosts (narrowed by index.html).
    const apiOrigin = context.consoleApiDomain
      ? `https://${context.consoleApiDomain.domainName}`
      : `https://*.execute-api.${this.region}.${this.urlSuffix}`;
    const headersPolicy = new cloudfront.ResponseHeadersPolicy(this, 'Headers', {
      comment: `Business Platform console pages (${context.stage}): CSP, HSTS, no framing, no referrer`,
      ...responseHeadersPolicyProps(
        consolePagesHeadersFor({ apiOrigins: [apiOrigin], signInOrigin: cognitoSignInUrl(this, context) }),
      ),
    });

    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: `Business Platform console pages (${context.stage})`,
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headersPolicy,
        compress: true,
      },
      defaultRootObject: PAGE_FILES.shell,
      errorResponses: SPA_FALLBACK_STATUSES.map((httpStatus) => ({
        httpStatus,
        responseHttpStatus: 200,
        responsePagePath: `/${PAGE_FILES.shell}`,
        ttl: Duration.seconds(0),
      })),
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      ...(domain
        ? {
            domainNames: [domain.domainName],
            certificate: acm.Certificate.fromCertificateArn(this, 'Certificate', domain.certificateArn),
            minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
          }
        : {}),
    });
    const acknowledge = (rule: string, reason: string) =>
      Validations.of(this.distribution).acknowledge({ id: `AwsSolutions-${rule}`, reason });
    acknowledge(
      'CFR1',
      'The pages are the same static files for everyone, and the service serves customers wherever they are.',
    );
    acknowledge(
      'CFR2',
      'Static files only: every request that carries data goes to the console API, which authenticates and throttles it.',
    );
    acknowledge(
      'CFR3',
      'Static files only, the same for everyone; the calls the pages make are logged by the console API and its functions.',
    );
    if (!domain) {
      acknowledge(
        'CFR4',
        'Without consoleDomainName the distribution uses its cloudfront.net name and certificate, whose TLS floor CloudFront fixes; with a name of yours it is TLS 1.2 (2021 policy).',
      );
    }

    const url = domain
      ? `https://${domain.domainName}`
      : `https://${this.distribution.distributionDomainName}`;
    if (domain && context.hostedZone) {
      const zone = route53.HostedZone.fromHostedZoneAttributes(this, 'Zone', {
        hostedZoneId: context.hostedZone.id,
        zoneName: context.hostedZone.name,
      });
      const target = route53.RecordTarget.fromAlias(new targets.CloudFrontTarget(this.distribution));
      const recordName = `${domain.domainName}.`;
      new route53.ARecord(this, 'AliasA', { zone, recordName, target });
      new route53.AaaaRecord(this, 'AliasAAAA', { zone, recordName, target });
    } else if (domain) {
      new CfnOutput(this, 'ConsolePagesDomainTarget', {
        value: this.distribution.distributionDomainName,
        description: `Point ${domain.domainName} here: a CNAME, or a Route 53 alias A and AAAA record to this CloudFront distribution`,
      });
    }
    new CfnOutput(this, 'ConsolePagesUrl', { value: url, description: 'The console pages' });

    const { stage } = context;
    publishParameter(this, stage, 'console-pages-url', url);
    publishParameter(this, stage, 'console-pages-bucket-name', this.bucket.bucketName);
    publishParameter(this, stage, 'console-pages-distribution-id', this.distribution.distributionId);
  }
}

/** The pages' files and this deployment's config.json and index.html; deployed after the API. */
export class ConsolePagesFilesStack extends Stack {
  constructor(scope: Construct, id: string, props: StackProps & { context: ServiceContext }) {
    super(scope, id, props);
    const { context } = props;
    const read = (key: Parameters<typeof readParameter>[2]) => readParameter(this, context.stage, key);

    const apiUrl = context.consoleApiDomain
      ? `https://${context.consoleApiDomain.domainName}`
      : apiEndpoint(this, read('console-api-id'));
    const signIn = cognitoSignInUrl(this, context);
    const config: ConsolePagesConfig = {
      apiUrl,
      signIn: {
        authorizeUrl: `${signIn}/oauth2/authorize`,
        tokenUrl: `${signIn}/oauth2/token`,
        logoutUrl: `${signIn}/logout`,
        clientId: read('jwt-audience'),
        scopes: [...CONSOLE_SIGN_IN_SCOPES],
      },
    };
    const shell = withMetaPolicy(
      pageShell('/'),
      connectSrcPolicy({ apiOrigins: [apiUrl], signInOrigin: signIn }),
    );

    new s3deploy.BucketDeployment(this, 'Files', {
      destinationBucket: s3.Bucket.fromBucketName(this, 'Bucket', read('console-pages-bucket-name')),
      sources: [
        consolePagesAsset(),
        s3deploy.Source.data(PAGE_FILES.shell, shell),
        s3deploy.Source.jsonData(CONFIG_FILE, config),
      ],
      // Browsers ask again each time (a 304 when unchanged), so a new app.js never meets an old index.html.
      cacheControl: [s3deploy.CacheControl.noCache()],
      distribution: cloudfront.Distribution.fromDistributionAttributes(this, 'Distribution', {
        distributionId: read('console-pages-distribution-id'),
        // Unused: the deployment invalidates by id only.
        domainName: '',
      }),
      distributionPaths: ['/*'],
    });
    // CDK's own handler (a singleton function of this stack, which holds nothing else) copies the
    // files; its role is what BucketDeployment grants, each finding for a stated reason.
    const bucketObjects = `arn:<AWS::Partition>:s3:::<${this.resolve(read('console-pages-bucket-name')).Ref}>/*`;
    const reasons: Record<string, string> = {
      'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]':
        "CDK's BucketDeployment handler logs with the managed basic execution policy; it runs only while a deployment copies the pages.",
      L1: "CDK's BucketDeployment handler runs on the Python runtime CDK builds it for; upgrading CDK upgrades it.",
      'IAM5[Action::s3:GetObject*]': 'Reading the source archives CDK published to its assets bucket.',
      'IAM5[Action::s3:GetBucket*]': 'Reading the source archives CDK published to its assets bucket.',
      'IAM5[Action::s3:List*]': 'Syncing the files: listing the assets bucket and the pages bucket.',
      'IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]':
        "The source archives are objects of CDK's assets bucket, named by their hash.",
      'IAM5[Action::s3:DeleteObject*]': 'A deployment deletes the files the new build no longer has.',
      'IAM5[Action::s3:Abort*]': 'Aborting an unfinished upload of a file.',
      [`IAM5[Resource::${bucketObjects}]`]: 'Every file of the pages bucket, which holds the pages only.',
      'IAM5[Resource::*]':
        'cloudfront:CreateInvalidation and GetInvalidation, which BucketDeployment grants on every distribution: the id comes from a parameter at deployment.',
    };
    for (const [finding, reason] of Object.entries(reasons)) {
      Validations.of(this).acknowledge({ id: `AwsSolutions-${finding}`, reason });
    }
  }
}
