import { join } from 'node:path';
import { Duration, Fn, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { tableDefinition } from '#lib/db/table.ts';
import type { RouteDefinition } from '#lib/http/route.ts';
import { esbuildOptions } from './bundling.ts';
import { ROOT_DIR } from './local/paths.ts';
import type { StatefulStack } from './stateful-stack.ts';

const TABLE_READ_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:ConditionCheckItem',
];
const TABLE_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];

/** Routes that hand out list cursors (their query takes one, or the tool server's change-log tool). */
const signsCursors = (route: RouteDefinition): boolean =>
  route.request.query?.shape.cursor !== undefined || route.auth === 'mcp';

export interface ServiceConfig {
  stateful: StatefulStack;
  sesSender: string;
  consoleUrl: string;
  /** The service's public base URL: the OAuth issuer (context `publicUrl`, else the API's URL). */
  publicUrl: string;
  /** Browser origins that may call the tool server (context `mcpAllowedOrigins`). */
  mcpAllowedOrigins: string[];
  /** A CDN in front of the photo bucket (context `photosPublicBaseUrl`): imports name public URLs. */
  photosPublicBaseUrl?: string | undefined;
}

/**
 * One operation's Lambda function with our defaults (Node 22, arm64, ESM, minified, source maps,
 * SDK bundled, its own log group) and exactly the permissions its route row asks for.
 */
export class ServiceFunction extends Construct {
  readonly function: nodejs.NodejsFunction;

  constructor(scope: Construct, id: string, route: RouteDefinition, config: ServiceConfig) {
    super(scope, id);
    const { stateful } = config;
    const environment: Record<string, string> = {
      TABLE_NAME: stateful.table.tableName,
      POWERTOOLS_SERVICE_NAME: 'business-platform',
      NODE_OPTIONS: '--enable-source-maps',
    };
    if (route.auth === 'console' || route.auth === 'edits') {
      environment.JWT_ISSUER = stateful.consoleIssuer.issuer;
      environment.JWT_AUDIENCE = stateful.consoleIssuer.audience;
    }
    if (
      route.auth === 'edits' ||
      route.auth === 'mcp' ||
      route.area === 'oauth' ||
      route.area === 'consent'
    ) {
      environment.OAUTH_ISSUER = config.publicUrl;
    }
    if (route.auth === 'mcp') environment.MCP_ALLOWED_ORIGINS = config.mcpAllowedOrigins.join(',');
    if (route.permissions.oauthSigningKey) {
      environment.OAUTH_SIGNING_KEY_SECRET_ID = stateful.oauthSigningKey.secretArn;
    }
    if (route.auth === 'internal' || route.permissions.internalApiKeys) {
      environment.INTERNAL_API_KEYS_SECRET_ID = stateful.internalApiKeys.secretArn;
    }
    // Resolved by CloudFormation at deploy time (a dynamic reference): no Secrets Manager call per cold start.
    if (signsCursors(route)) environment.CURSOR_SECRET = stateful.cursorSecret.secretValue.unsafeUnwrap();
    if (route.permissions.photos) environment.PHOTOS_BUCKET = stateful.photosBucket.bucketName;
    if (route.permissions.photos === 'readwrite' && config.photosPublicBaseUrl) {
      environment.PHOTOS_PUBLIC_BASE_URL = config.photosPublicBaseUrl;
    }
    if (route.permissions.sendEmail) environment.SES_SENDER = config.sesSender;
    // Links into the console: invite e-mails, and /oauth/authorize's redirect to the consent page.
    if (route.permissions.sendEmail || route.area === 'oauth') environment.CONSOLE_URL = config.consoleUrl;

    const logGroup = new logs.LogGroup(this, 'Logs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    // Our own role instead of the managed basic-execution policy: it may write to this log group only.
    const role = new iam.Role(this, 'Role', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    logGroup.grantWrite(role);

    this.function = new nodejs.NodejsFunction(this, 'Function', {
      entry: join(ROOT_DIR, route.handler),
      projectRoot: ROOT_DIR,
      depsLockFilePath: join(ROOT_DIR, 'package-lock.json'),
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: 1024,
      timeout: Duration.seconds(route.timeoutSeconds ?? 10),
      description: `${route.method} ${route.path}`,
      environment,
      role,
      logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      bundling: {
        format: nodejs.OutputFormat.ESM,
        target: esbuildOptions.target,
        minify: esbuildOptions.minify,
        sourceMap: esbuildOptions.sourcemap,
        mainFields: esbuildOptions.mainFields,
        banner: esbuildOptions.banner.js,
        externalModules: esbuildOptions.external,
        forceDockerBundling: false,
      },
    });

    role.addToPolicy(
      new iam.PolicyStatement({
        actions:
          route.permissions.table === 'read'
            ? TABLE_READ_ACTIONS
            : [...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS],
        // The table and each named index, spelled out instead of CDK's `index/*`.
        resources: [
          stateful.table.tableArn,
          ...tableDefinition.globalSecondaryIndexes.map(
            (gsi) => `${stateful.table.tableArn}/index/${gsi.indexName}`,
          ),
        ],
      }),
    );
    if (route.permissions.photos) {
      // Object actions only (no s3:List*, no s3:*), on the objects under the route's key prefix.
      const objects = route.permissions.photoKeys ?? '*';
      role.addToPolicy(
        new iam.PolicyStatement({
          actions:
            route.permissions.photos === 'read'
              ? ['s3:GetObject']
              : ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
          resources: [`${Fn.importValue(stateful.photosBucketArnExport)}/${objects}`],
        }),
      );
      Validations.of(this).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${stateful.photosBucketArnExport}/${objects}]`,
        reason:
          'Photo objects are addressed by key prefix (businesses/<id>/photos/…, gallery/…): one object ARN pattern, object actions only.',
      });
    }
    if (route.auth === 'internal' || route.permissions.internalApiKeys)
      stateful.internalApiKeys.grantRead(role);
    if (route.permissions.oauthSigningKey) stateful.oauthSigningKey.grantRead(role);
    if (route.permissions.oauthSigningKey === 'readwrite') stateful.oauthSigningKey.grantWrite(role);
    if (route.permissions.sendEmail) {
      const domain = config.sesSender.split('@')[1] ?? config.sesSender;
      role.addToPolicy(
        new iam.PolicyStatement({
          actions: ['ses:SendEmail', 'ses:SendRawEmail'],
          resources: [config.sesSender, domain].map((identity) =>
            Stack.of(this).formatArn({ service: 'ses', resource: 'identity', resourceName: identity }),
          ),
          conditions: { StringEquals: { 'ses:FromAddress': config.sesSender } },
        }),
      );
    }

    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'DESIGN §1 fixes the runtime at Node.js 22 (nodejs22.x); moving to a newer one is a deliberate, tested change.',
    });
  }
}
