import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { NO_KEY_SET } from '#lib/auth/deployed-key-set.ts';
import { tableDefinition } from '#lib/db/table.ts';
import { cognitoDomainPrefix } from './cognito-sign-in.ts';
import { ConsoleKeySet } from './console-key-set.ts';
import { consoleSite } from './console-site.ts';
import { functionName } from './function-name.ts';
import { mailConfigurationSetName, NO_SES_IDENTITY_CREATED, ServiceMail, sesIdentityArn } from './mail.ts';
import { NodeFunction } from './node-function.ts';
import { publishParameter } from './parameters.ts';
import type { ServiceContext } from './service-context.ts';

export interface StatefulStackProps extends StackProps {
  context: ServiceContext;
}

/** Console identity settings handed to every console-authenticated function. */
export interface ConsoleIssuer {
  issuer: string;
  audience: string;
  /** How console-token.ts checks the token: Cognito access tokens, or any OIDC issuer's. */
  profile: 'cognito' | 'oidc';
}

/**
 * A secret whose value someone other than CloudFormation writes: the service (the signing keys)
 * or an operator (the internal API keys). The template holds no value for it, neither a literal
 * nor a generator, so no later deployment can replace the live value; CloudFormation creates it
 * empty, and readers treat "no value yet" as no keys (lib/config/secrets.ts).
 */
function secretWithoutValue(
  scope: Construct,
  id: string,
  props: { description: string; removalPolicy: RemovalPolicy },
): secretsmanager.Secret {
  const secret = new secretsmanager.Secret(scope, id, props);
  // CDK adds a default generator when given no value; an empty secret has neither.
  (secret.node.defaultChild as secretsmanager.CfnSecret).addPropertyDeletionOverride('GenerateSecretString');
  return secret;
}

/** Versions of replaced or deleted photos are kept this long (recovery from a bad write). */
const OLD_PHOTO_VERSIONS_DAYS = 30;

/**
 * Everything that holds data and must outlive any deployment of the code: the table, the photo
 * bucket, the secrets, the user pool, the SES identity and configuration set. Other stacks find them through SSM
 * parameters (infra/parameters.ts), never through exports.
 *
 * With `retainData`, CloudFormation keeps them when an update or a stack deletion would remove
 * or replace them. The bucket, the secrets and the SES identity are kept except when the stack
 * operation that created them fails (`RetainExceptOnCreate`): a failed first deployment takes
 * them back, and its retry does not find them in its way nor leave them billing. The table and
 * the user pool are kept always (`Retain`): their deletion protection, which also guards against
 * a deletion by hand, would make that rollback fail; left empty, they cost nothing.
 */
export class StatefulStack extends Stack {
  readonly table: dynamodb.TableV2;
  readonly photosBucket: s3.Bucket;
  readonly internalApiKeys: secretsmanager.Secret;
  /** ES256 key of the OAuth server; created empty, filled by the token endpoint on first use. */
  readonly oauthSigningKey: secretsmanager.Secret;
  /** The HMAC keys of list cursors (lib/db/cursor-keys.ts), read by the functions that page. */
  readonly cursorSecret: secretsmanager.Secret;
  readonly consoleIssuer: ConsoleIssuer;
  readonly userPool: cognito.UserPool | undefined;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);
    const { context } = props;
    const retain = context.retainData;
    const removalPolicy = retain ? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE : RemovalPolicy.DESTROY;
    const protectedRemovalPolicy = retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.table = new dynamodb.TableV2(this, 'Table', {
      partitionKey: { name: tableDefinition.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: tableDefinition.sortKey, type: dynamodb.AttributeType.STRING },
      billing: dynamodb.Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
      // Read by the change-event publisher (infra/events-stack.ts); kept 24 hours by DynamoDB.
      dynamoStream: dynamodb.StreamViewType[tableDefinition.stream],
      globalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map((gsi) => ({
        indexName: gsi.indexName,
        partitionKey: { name: gsi.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: gsi.sortKey, type: dynamodb.AttributeType.STRING },
      })),
      deletionProtection: retain,
      removalPolicy: protectedRemovalPolicy,
    });

    this.photosBucket = new s3.Bucket(this, 'Photos', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      lifecycleRules: [
        {
          id: 'expire-old-versions',
          noncurrentVersionExpiration: Duration.days(OLD_PHOTO_VERSIONS_DAYS),
          expiredObjectDeleteMarker: true,
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      removalPolicy,
      autoDeleteObjects: !retain,
    });
    Validations.of(this.photosBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Photo reads and writes are made by our own functions and logged by them with the request id; S3 server access logs would duplicate that.',
    });

    this.internalApiKeys = secretWithoutValue(this, 'InternalApiKeys', {
      description: 'Keys accepted in x-internal-api-key: {"current": "...", "previous": "..."}',
      removalPolicy,
    });
    Validations.of(this.internalApiKeys).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotation is an operator step with two live keys (current, previous) so callers can switch without downtime; no rotation Lambda can update the media service.',
    });

    this.oauthSigningKey = secretWithoutValue(this, 'OAuthSigningKey', {
      description:
        'Access-token signing keys of the OAuth server: {"current": <private JWK>, "next"?: <private JWK>}',
      removalPolicy,
    });
    Validations.of(this.oauthSigningKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotating a signing key means publishing the new key before signing with it (current/previous in the secret); an operator step, not a rotation Lambda.',
    });

    this.cursorSecret = new secretsmanager.Secret(this, 'CursorSecret', {
      description: 'HMAC keys that make list cursors tamper-proof: {"current": "...", "previous": "..."}',
      generateSecretString: {
        secretStringTemplate: JSON.stringify({}),
        generateStringKey: 'current',
        excludePunctuation: true,
        passwordLength: 48,
      },
      removalPolicy,
    });
    Validations.of(this.cursorSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotation is an operator step with two live keys (current signs, previous is still accepted) so cursors in flight keep working; no rotation Lambda is needed.',
    });

    new ServiceMail(this, 'Mail', context, removalPolicy);
    publishParameter(
      this,
      context.stage,
      'ses-identity-created',
      context.sesIdentityMode === 'create' ? context.sesIdentity : NO_SES_IDENTITY_CREATED,
    );

    if (context.externalIssuer) {
      this.consoleIssuer = { ...context.externalIssuer, profile: 'oidc' };
      this.userPool = undefined;
    } else {
      const { userPool, clientId } = this.consoleUserPool(context, protectedRemovalPolicy);
      this.userPool = userPool;
      this.consoleIssuer = {
        issuer: `https://cognito-idp.${this.region}.amazonaws.com/${userPool.userPoolId}`,
        audience: clientId,
        profile: 'cognito',
      };
    }

    const { stage } = context;
    publishParameter(this, stage, 'table-name', this.table.tableName);
    publishParameter(this, stage, 'table-arn', this.table.tableArn);
    // The stream's ARN changes only if the stream is turned off and on again; the events stack reads it.
    publishParameter(this, stage, 'table-stream-arn', this.table.tableStreamArn ?? '');
    publishParameter(this, stage, 'photos-bucket-name', this.photosBucket.bucketName);
    publishParameter(this, stage, 'photos-bucket-arn', this.photosBucket.bucketArn);
    publishParameter(this, stage, 'internal-api-keys-arn', this.internalApiKeys.secretArn);
    publishParameter(this, stage, 'oauth-signing-key-arn', this.oauthSigningKey.secretArn);
    publishParameter(this, stage, 'cursor-secret-arn', this.cursorSecret.secretArn);
    publishParameter(this, stage, 'jwt-issuer', this.consoleIssuer.issuer);
    publishParameter(this, stage, 'jwt-audience', this.consoleIssuer.audience);
    publishParameter(this, stage, 'jwt-profile', this.consoleIssuer.profile);
    // The token endpoint asks the pool whether a person's account is still active before a refresh.
    if (this.userPool) {
      publishParameter(this, stage, 'user-pool-id', this.userPool.userPoolId);
      publishParameter(this, stage, 'user-pool-arn', this.userPool.userPoolArn);
    }
    // The user pool's public keys, so console functions start without fetching them. Another
    // issuer's keys are not this stack's to snapshot: the functions fetch them on first use.
    publishParameter(
      this,
      stage,
      'jwt-key-set',
      this.userPool
        ? new ConsoleKeySet(this, 'ConsoleKeySet', { issuer: this.consoleIssuer.issuer, stage }).value
        : NO_KEY_SET,
    );

    new CfnOutput(this, 'TableName', { value: this.table.tableName, description: 'TABLE_NAME for the CLIs' });
    new CfnOutput(this, 'PhotosBucketName', { value: this.photosBucket.bucketName });
    new CfnOutput(this, 'InternalApiKeysSecretArn', { value: this.internalApiKeys.secretArn });
    new CfnOutput(this, 'ConsoleIssuer', {
      value: this.consoleIssuer.issuer,
      description: 'JWT_ISSUER for `npm run business -- add-member`',
    });
    new CfnOutput(this, 'ConsoleClientId', { value: this.consoleIssuer.audience });
  }

  /**
   * Who sends the user pool's own mail (sign-up codes, password resets). Cognito's shared sender
   * (the default) works in the SES sandbox, where SES would refuse every recipient not verified
   * there, but sends about 50 mails a day from a domain that is not the customer's. Once SES has
   * production access, `cognitoEmail: ses` sends from the service's sender through its
   * configuration set; Cognito does so with its own service-linked role. Written on the
   * CloudFormation resource because CDK's `withSES` needs a region known at synth, and these
   * stacks take theirs from the deployment.
   */
  private chooseUserPoolMail(userPool: cognito.UserPool, context: ServiceContext): void {
    if (context.cognitoEmail !== 'ses') return;
    const pool = userPool.node.defaultChild as cognito.CfnUserPool;
    pool.emailConfiguration = {
      emailSendingAccount: 'DEVELOPER',
      from: context.sesSender,
      sourceArn: sesIdentityArn(this, context.sesIdentity),
      configurationSet: mailConfigurationSetName(context.stage),
    };
  }

  /** The console's Cognito user pool, its app client and, for the hosted flow, its domain. */
  private consoleUserPool(context: ServiceContext, removalPolicy: RemovalPolicy) {
    const userPool = new cognito.UserPool(this, 'ConsoleUsers', {
      signInAliases: { email: true },
      // Anyone may try; the Pre Sign-up trigger below admits invited addresses only.
      selfSignUpEnabled: true,
      autoVerify: { email: true },
      passwordPolicy: {
        minLength: 12,
        requireDigits: true,
        requireLowercase: true,
        requireUppercase: true,
        requireSymbols: true,
      },
      mfa: cognito.Mfa.OPTIONAL,
      mfaSecondFactor: { sms: false, otp: true },
      // Essentials already serves the V2_0 Pre Token Generation event (access-token claims);
      // Plus, billed per active user from the first, adds threat protection, enforced when chosen.
      ...(context.cognitoTier === 'plus'
        ? {
            featurePlan: cognito.FeaturePlan.PLUS,
            standardThreatProtectionMode: cognito.StandardThreatProtectionMode.FULL_FUNCTION,
          }
        : { featurePlan: cognito.FeaturePlan.ESSENTIALS }),
      // Cognito's own sender unless the settings choose ours (chooseUserPoolMail).
      email: cognito.UserPoolEmail.withCognito(),
      accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
      deletionProtection: context.retainData,
      removalPolicy,
    });
    this.chooseUserPoolMail(userPool, context);
    if (context.cognitoTier === 'essentials') {
      Validations.of(userPool).acknowledge({
        id: 'AwsSolutions-COG8',
        reason:
          'Essentials by default: Plus bills every monthly active user from the first; the cognitoTier setting turns on Plus with threat protection enforced.',
      });
    }
    Validations.of(userPool).acknowledge({
      id: 'AwsSolutions-COG2',
      reason:
        'MFA is offered (TOTP) but left to each business user; forcing it is a product decision for the console.',
    });

    // Access tokens carry no e-mail; admins and invitees are recognised by it (lib/auth/access-token-email.ts).
    const trigger = new NodeFunction(this, 'PreTokenGeneration', {
      functionName: functionName(context.stage, 'PreTokenGeneration'),
      entry: 'functions/triggers/pre-token-generation.ts',
      description: 'Cognito Pre Token Generation (V2_0): e-mail claims in access tokens',
      timeoutSeconds: 5,
      environment: {},
    });
    userPool.addTrigger(
      cognito.UserPoolOperation.PRE_TOKEN_GENERATION_CONFIG,
      trigger.function,
      cognito.LambdaVersion.V2_0,
    );
    // The stages stack alarms on the triggers' errors: no API sees them fail.
    publishParameter(
      this,
      context.stage,
      'pre-token-generation-function-name',
      trigger.function.functionName,
    );

    this.addSignUpTriggers(userPool, context);

    const hosted = context.consoleSignIn === 'hosted';
    // The console's, and the deployed pages' when they are another site: both sign in with this client.
    const { pagesUrl } = consoleSite(this, context);
    const sites = [...new Set([context.consoleUrl, pagesUrl])].filter(
      (url): url is string => url !== undefined,
    );
    const client = userPool.addClient('Console', {
      authFlows: { userSrp: true },
      generateSecret: false,
      accessTokenValidity: Duration.hours(1),
      idTokenValidity: Duration.hours(1),
      preventUserExistenceErrors: true,
      supportedIdentityProviders: [cognito.UserPoolClientIdentityProvider.COGNITO],
      ...(hosted
        ? {
            oAuth: {
              // Authorization code (with PKCE, which Cognito enforces when the client sends it); no implicit.
              flows: { authorizationCodeGrant: true, implicitCodeGrant: false, clientCredentials: false },
              scopes: [cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL, cognito.OAuthScope.PROFILE],
              callbackUrls: sites.map((site) => `${site}/auth/callback`),
              logoutUrls: sites.map((site) => `${site}/`),
            },
          }
        : { disableOAuth: true }),
    });
    if (hosted) {
      const domain = userPool.addDomain('SignIn', {
        cognitoDomain: {
          domainPrefix: cognitoDomainPrefix(this, context),
        },
      });
      new CfnOutput(this, 'CognitoDomain', {
        value: domain.baseUrl(),
        description: 'Managed login (hosted UI)',
      });
      // The pool keeps this domain: npm run deploy refuses a prefix that would change it.
      publishParameter(this, context.stage, 'cognito-domain-prefix', cognitoDomainPrefix(this, context));
    }
    new CfnOutput(this, 'UserPoolId', { value: userPool.userPoolId });
    return { userPool, clientId: client.userPoolClientId };
  }

  /**
   * Invite-only sign-up: Pre Sign-up admits an address only when it was invited (it reads the
   * table, nothing more); Post Confirmation, once Cognito's code proved the address, turns its
   * pending business memberships into memberships. Each role may do exactly that on the table.
   */
  private addSignUpTriggers(userPool: cognito.UserPool, context: ServiceContext) {
    const environment = { TABLE_NAME: this.table.tableName };
    const preSignUp = new NodeFunction(this, 'PreSignUp', {
      functionName: functionName(context.stage, 'PreSignUp'),
      entry: 'functions/triggers/pre-sign-up.ts',
      description: 'Cognito Pre Sign-up: admits invited e-mail addresses only',
      timeoutSeconds: 5,
      environment: {
        ...environment,
        ...(context.bootstrapAdminEmail ? { BOOTSTRAP_ADMIN_EMAIL: context.bootstrapAdminEmail } : {}),
      },
    });
    preSignUp.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:GetItem', 'dynamodb:Query'],
        resources: [this.table.tableArn],
      }),
    );
    userPool.addTrigger(cognito.UserPoolOperation.PRE_SIGN_UP, preSignUp.function);
    publishParameter(this, context.stage, 'pre-sign-up-function-name', preSignUp.function.functionName);

    const postConfirmation = new NodeFunction(this, 'PostConfirmation', {
      functionName: functionName(context.stage, 'PostConfirmation'),
      entry: 'functions/triggers/post-confirmation.ts',
      description: 'Cognito Post Confirmation: pending business memberships become memberships',
      timeoutSeconds: 5,
      environment,
    });
    postConfirmation.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
        resources: [this.table.tableArn],
      }),
    );
    userPool.addTrigger(cognito.UserPoolOperation.POST_CONFIRMATION, postConfirmation.function);
    publishParameter(
      this,
      context.stage,
      'post-confirmation-function-name',
      postConfirmation.function.functionName,
    );
  }
}
