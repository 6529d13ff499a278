import { Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { DEFAULT_FUNCTION_TIMEOUT_SECONDS, MAX_FUNCTION_TIMEOUT_SECONDS } from '#lib/config/timeouts.ts';
import { tableDefinition } from '#lib/db/table.ts';
import type { RouteDefinition } from '#lib/http/route.ts';
import { functionName } from './function-name.ts';
import { mailConfigurationSetArn, mailConfigurationSetName, sesIdentityArn } from './mail.ts';
import { NodeFunction } from './node-function.ts';

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

/**
 * Routes that hand out list cursors (their query takes one, as `cursor` or, on the event feed,
 * `after`; or the tool server's change-log tool).
 */
export const signsCursors = (route: RouteDefinition): boolean =>
  route.request.query?.shape.cursor !== undefined ||
  route.request.query?.shape.after !== undefined ||
  route.auth === 'mcp';

/** The route's timeout, refused at synth when it would outlive API Gateway's 30 s. */
function functionTimeoutSeconds(route: RouteDefinition): number {
  const seconds = route.timeoutSeconds ?? DEFAULT_FUNCTION_TIMEOUT_SECONDS;
  if (seconds > MAX_FUNCTION_TIMEOUT_SECONDS) {
    throw new Error(
      `${route.operationId}: timeoutSeconds ${seconds} exceeds ${MAX_FUNCTION_TIMEOUT_SECONDS} s`,
    );
  }
  return seconds;
}

/** Names and ARNs of the stateful resources, as the routes stack reads them (SSM parameters). */
export interface StatefulRefs {
  tableName: string;
  tableArn: string;
  photosBucketName: string;
  photosBucketArn: string;
  internalApiKeysArn: string;
  oauthSigningKeyArn: string;
  /** The HMAC key of list cursors (lib/db/cursor.ts). */
  cursorSecretArn: string;
  jwtIssuer: string;
  jwtAudience: string;
  jwtProfile: string;
  /** The console issuer's public keys as JSON, `{"keys":[]}` when none (infra/console-key-set.ts). */
  jwtKeySet: string;
  /** The console's Cognito user pool; read only where `ServiceConfig.consoleUserPool` says there is one. */
  userPoolId: string;
  userPoolArn: string;
}

export interface ServiceConfig {
  /** The stage: names the mail configuration set. */
  stage: string;
  sesSender: string;
  consoleUrl: string;
  /** The service's public base URL: the OAuth issuer (context `publicUrl`, else the assistant API's URL). */
  publicUrl: string;
  /** Browser origins that may call the tool server (context `mcpAllowedOrigins`). */
  mcpAllowedOrigins: string[];
  /** A CDN in front of the photo bucket (context `photosPublicBaseUrl`): imports name public URLs. */
  photosPublicBaseUrl?: string | undefined;
  /** The stage's console signs in with its own Cognito user pool (no context `issuer`). */
  consoleUserPool: boolean;
}

/** Whether a route's function asks the user pool about accounts: where it asks and the stage has a pool. */
const asksAccountDirectory = (route: RouteDefinition, config: ServiceConfig): boolean =>
  Boolean(route.permissions.accountDirectory) && config.consoleUserPool;

/** Whether a route's function reads the internal API keys: every internal route, and any that asks. */
const readsInternalApiKeys = (route: RouteDefinition): boolean =>
  route.auth === 'internal' || Boolean(route.permissions.internalApiKeys);

/**
 * The environment CDK gives one operation's function: what its route row says it reaches, and
 * nothing else. A module that reads a variable at load (lib/config/env.ts) must belong only to
 * functions whose rows grant it; test/integration/bundles.test.ts starts every bundle with just
 * these names set.
 */
export function functionEnvironment(
  route: RouteDefinition,
  config: ServiceConfig,
  refs: StatefulRefs,
): Record<string, string> {
  const environment: Record<string, string> = { TABLE_NAME: refs.tableName };
  if (route.auth === 'console' || route.auth === 'edits') {
    environment.JWT_ISSUER = refs.jwtIssuer;
    environment.JWT_AUDIENCE = refs.jwtAudience;
    environment.JWT_PROFILE = refs.jwtProfile;
    environment.JWT_KEY_SET = refs.jwtKeySet;
  }
  if (route.auth === 'edits' || route.auth === 'mcp' || route.area === 'oauth' || route.area === 'consent') {
    environment.OAUTH_ISSUER = config.publicUrl;
  }
  if (route.auth === 'mcp') environment.MCP_ALLOWED_ORIGINS = config.mcpAllowedOrigins.join(',');
  if (route.permissions.oauthSigningKey) environment.OAUTH_SIGNING_KEY_SECRET_ID = refs.oauthSigningKeyArn;
  if (readsInternalApiKeys(route)) {
    environment.INTERNAL_API_KEYS_SECRET_ID = refs.internalApiKeysArn;
  }
  if (signsCursors(route)) environment.CURSOR_SECRET_ID = refs.cursorSecretArn;
  if (asksAccountDirectory(route, config)) environment.CONSOLE_USER_POOL_ID = refs.userPoolId;
  if (route.permissions.photos) environment.PHOTOS_BUCKET = refs.photosBucketName;
  if (route.permissions.photos === 'readwrite' && config.photosPublicBaseUrl) {
    environment.PHOTOS_PUBLIC_BASE_URL = config.photosPublicBaseUrl;
  }
  if (route.permissions.sendEmail) {
    environment.SES_SENDER = config.sesSender;
    environment.SES_CONFIGURATION_SET = mailConfigurationSetName(config.stage);
  }
  // Links into the console: invite e-mails, and /oauth/authorize's redirect to the consent page.
  if (route.permissions.sendEmail || route.area === 'oauth') environment.CONSOLE_URL = config.consoleUrl;
  return environment;
}

/** One operation's Lambda function with exactly the permissions its route row asks for. */
export class ServiceFunction extends Construct {
  readonly function: lambda.Function;
  /** The function's log group: the metric filters of infra/log-signals.ts read it. */
  readonly logGroup: logs.ILogGroup;

  constructor(
    scope: Construct,
    id: string,
    route: RouteDefinition,
    config: ServiceConfig,
    refs: StatefulRefs,
  ) {
    super(scope, id);
    const environment = functionEnvironment(route, config, refs);

    const {
      function: fn,
      role,
      logGroup,
    } = new NodeFunction(this, 'Fn', {
      functionName: functionName(config.stage, route.operationId),
      entry: route.handler,
      description: `${route.method} ${route.path}`,
      timeoutSeconds: functionTimeoutSeconds(route),
      environment,
    });
    this.function = fn;
    this.logGroup = logGroup;

    role.addToPolicy(
      new iam.PolicyStatement({
        actions:
          route.permissions.table === 'read'
            ? TABLE_READ_ACTIONS
            : [...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS],
        // The table and each named index, spelled out instead of CDK's `index/*`.
        resources: [
          refs.tableArn,
          ...tableDefinition.globalSecondaryIndexes.map((gsi) => `${refs.tableArn}/index/${gsi.indexName}`),
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
          resources: [`${refs.photosBucketArn}/${objects}`],
        }),
      );
      // cdk-nag names the bucket ARN by the SSM parameter it comes from.
      const { Ref: bucketArnParameter } = Stack.of(this).resolve(refs.photosBucketArn) as { Ref: string };
      Validations.of(this).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${bucketArnParameter}>/${objects}]`,
        reason:
          'Photo objects are addressed by key prefix (businesses/<id>/photos/…, gallery/…): one object ARN pattern, object actions only.',
      });
    }
    const secretActions = (write: boolean) => [
      'secretsmanager:GetSecretValue',
      'secretsmanager:DescribeSecret',
      ...(write ? ['secretsmanager:PutSecretValue'] : []),
    ];
    if (readsInternalApiKeys(route)) {
      role.addToPolicy(
        new iam.PolicyStatement({ actions: secretActions(false), resources: [refs.internalApiKeysArn] }),
      );
    }
    if (signsCursors(route)) {
      role.addToPolicy(
        new iam.PolicyStatement({ actions: secretActions(false), resources: [refs.cursorSecretArn] }),
      );
    }
    if (route.permissions.oauthSigningKey) {
      role.addToPolicy(
        new iam.PolicyStatement({
          actions: secretActions(true),
          resources: [refs.oauthSigningKeyArn],
        }),
      );
    }
    if (asksAccountDirectory(route, config)) {
      // One read of one user by its sub, on this stage's pool alone (lib/auth/account-status.ts).
      role.addToPolicy(
        new iam.PolicyStatement({ actions: ['cognito-idp:AdminGetUser'], resources: [refs.userPoolArn] }),
      );
    }
    if (route.permissions.sendEmail) {
      // SES authorises a send against every identity it involves: the sender's, and in the
      // sandbox the recipient's (a verified address) too, so `identity/*`; the From address
      // condition still allows only the configured sender. The configuration set is a resource
      // of the send as well.
      role.addToPolicy(
        new iam.PolicyStatement({
          actions: ['ses:SendEmail', 'ses:SendRawEmail'],
          resources: [sesIdentityArn(this, '*'), mailConfigurationSetArn(this, config.stage)],
          conditions: { StringEquals: { 'ses:FromAddress': config.sesSender } },
        }),
      );
      Validations.of(this).acknowledge({
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]`,
        reason:
          'In the SES sandbox a send is authorised against the recipient identity too; the ses:FromAddress condition keeps the sender to the configured address.',
      });
    }
  }
}
