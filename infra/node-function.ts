import { AssetHashType, DockerImage, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { BatchBundling } from './batch-bundling.ts';
import { FUNCTION_LOG_RETENTION } from './handler-log-groups.ts';
import { ROOT_DIR } from './local/paths.ts';

export interface NodeFunctionProps {
  /** The function's name, from infra/function-name.ts: the stage's prefix and what it does. */
  functionName: string;
  /** Handler source relative to the repository root. */
  entry: string;
  description: string;
  timeoutSeconds: number;
  environment: Record<string, string>;
}

/**
 * A function with our defaults (Node 22, arm64, CommonJS (infra/bundling.ts), minified, source
 * maps, SDK bundled, X-Ray active tracing), its own log group and its own role allowed to write
 * only there. Routes (ServiceFunction) and the Cognito trigger use it; callers add their own grants
 * to `role`.
 */
export class NodeFunction extends Construct {
  readonly function: lambda.Function;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: NodeFunctionProps) {
    super(scope, id);
    const logGroup = new logs.LogGroup(this, 'Logs', {
      retention: FUNCTION_LOG_RETENTION,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.logGroup = logGroup;
    // Our own role instead of the managed basic-execution policy: it may write to this log group only.
    this.role = new iam.Role(this, 'Role', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    logGroup.grantWrite(this.role);

    this.function = new lambda.Function(this, 'Function', {
      functionName: props.functionName,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: 1024,
      timeout: Duration.seconds(props.timeoutSeconds),
      description: props.description,
      environment: {
        POWERTOOLS_SERVICE_NAME: 'business-platform',
        // No --enable-source-maps: every cold start would pay for loading the map to serve the rare
        // stack trace; the map ships in the artefact for whoever reads one (docs/decisions.md,
        // 'Cold starts').
        ...props.environment,
      },
      role: this.role,
      logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      tracing: lambda.Tracing.ACTIVE,
      // The bundle (CommonJS `index.js` with its source map, and the files it carries beside it)
      // comes from one esbuild build of every function (infra/batch-bundling.ts). The asset is
      // hashed on that output; a stack whose bundling CDK skips gets a placeholder hash, as for any
      // bundled asset, and never builds.
      handler: 'index.handler',
      code: lambda.Code.fromAsset(ROOT_DIR, {
        assetHashType: AssetHashType.OUTPUT,
        bundling: {
          local: new BatchBundling(props.entry),
          // Never pulled: the local bundling above always succeeds, and no Docker is needed.
          image: DockerImage.fromRegistry('unused-docker-image'),
        },
      }),
    });

    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'The service runs on Node.js 22 (nodejs22.x), locally and in its tests too; moving to a newer one is a deliberate, tested change.',
    });
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions (AWS documents Resource "*").',
    });
  }
}
