import { Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { tableDefinition } from '#lib/db/table.ts';

export interface StatefulStackProps extends StackProps {
  /** Use this OIDC issuer instead of creating a Cognito user pool. */
  externalIssuer?: { issuer: string; audience: string };
  retainData: boolean;
}

/** Console identity settings handed to every console-authenticated function. */
export interface ConsoleIssuer {
  issuer: string;
  audience: string;
}

/**
 * Everything that holds data and must outlive any deployment of the code: the table, the photo
 * bucket, the internal API keys and the user pool. Kept apart from the (large) route stacks.
 */
export class StatefulStack extends Stack {
  readonly table: dynamodb.TableV2;
  readonly photosBucket: s3.Bucket;
  /**
   * The export that carries the photo bucket's ARN under a name of our choosing, so that a
   * function's object-prefix grant (and its cdk-nag acknowledgement) can name it.
   */
  readonly photosBucketArnExport: string;
  readonly internalApiKeys: secretsmanager.Secret;
  /** ES256 key of the OAuth server; created empty, filled by the token endpoint on first use. */
  readonly oauthSigningKey: secretsmanager.Secret;
  /** The HMAC key of list cursors (lib/db/cursor.ts), given to the functions that page as CURSOR_SECRET. */
  readonly cursorSecret: secretsmanager.Secret;
  readonly consoleIssuer: ConsoleIssuer;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);
    const removalPolicy = props.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.table = new dynamodb.TableV2(this, 'Table', {
      partitionKey: { name: tableDefinition.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: tableDefinition.sortKey, type: dynamodb.AttributeType.STRING },
      billing: dynamodb.Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
      globalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map((gsi) => ({
        indexName: gsi.indexName,
        partitionKey: { name: gsi.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: gsi.sortKey, type: dynamodb.AttributeType.STRING },
      })),
      deletionProtection: props.retainData,
      removalPolicy,
    });

    this.photosBucket = new s3.Bucket(this, 'Photos', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      removalPolicy,
      autoDeleteObjects: !props.retainData,
    });
    this.photosBucketArnExport = `${id}-PhotosBucketArn`;
    this.exportValue(this.photosBucket.bucketArn, { name: this.photosBucketArnExport });
    Validations.of(this.photosBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Photo reads and writes are made by our own functions and logged by them with the request id; S3 server access logs would duplicate that.',
    });

    this.internalApiKeys = new secretsmanager.Secret(this, 'InternalApiKeys', {
      description: 'Keys accepted in x-internal-api-key: {"current": "...", "previous": "..."}',
      generateSecretString: {
        secretStringTemplate: JSON.stringify({}),
        generateStringKey: 'current',
        excludePunctuation: true,
        passwordLength: 48,
      },
      removalPolicy,
    });
    Validations.of(this.internalApiKeys).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotation is an operator step with two live keys (current, previous) so callers can switch without downtime; no rotation Lambda can update the media service.',
    });

    this.oauthSigningKey = new secretsmanager.Secret(this, 'OAuthSigningKey', {
      description:
        'Access-token signing key of the OAuth server: {"current": <private JWK>, "previous"?: <private JWK>}',
      secretObjectValue: {},
      removalPolicy,
    });
    Validations.of(this.oauthSigningKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotating a signing key means publishing the new key before signing with it (current/previous in the secret); an operator step, not a rotation Lambda.',
    });

    this.cursorSecret = new secretsmanager.Secret(this, 'CursorSecret', {
      description: 'HMAC key that makes list cursors tamper-proof (a random string)',
      generateSecretString: { excludePunctuation: true, passwordLength: 48 },
      removalPolicy,
    });
    Validations.of(this.cursorSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'A new cursor key only invalidates cursors in flight (clients restart the listing on the 422); an operator rotates it with a redeploy, no rotation Lambda is needed.',
    });

    if (props.externalIssuer) {
      this.consoleIssuer = props.externalIssuer;
    } else {
      const userPool = new cognito.UserPool(this, 'ConsoleUsers', {
        signInAliases: { email: true },
        selfSignUpEnabled: false,
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
        featurePlan: cognito.FeaturePlan.PLUS,
        standardThreatProtectionMode: cognito.StandardThreatProtectionMode.FULL_FUNCTION,
        accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
        removalPolicy,
      });
      Validations.of(userPool).acknowledge({
        id: 'AwsSolutions-COG2',
        reason:
          'MFA is offered (TOTP) but left to each business user; forcing it is a product decision for the console.',
      });
      const client = userPool.addClient('Console', {
        authFlows: { userSrp: true },
        accessTokenValidity: Duration.hours(1),
        idTokenValidity: Duration.hours(1),
        preventUserExistenceErrors: true,
      });
      this.consoleIssuer = {
        issuer: `https://cognito-idp.${this.region}.amazonaws.com/${userPool.userPoolId}`,
        audience: client.userPoolClientId,
      };
    }
  }
}
