import { join } from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { bundleFiles, writeBundleFilesCommands } from './bundle-files.ts';
import { BUNDLE_ALIASES, esbuildOptions } from './bundling.ts';
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
  readonly function: nodejs.NodejsFunction;
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

    this.function = new nodejs.NodejsFunction(this, 'Function', {
      functionName: props.functionName,
      entry: join(ROOT_DIR, props.entry),
      projectRoot: ROOT_DIR,
      depsLockFilePath: join(ROOT_DIR, 'package-lock.json'),
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
      bundling: {
        format: nodejs.OutputFormat.CJS,
        target: esbuildOptions.target,
        minify: esbuildOptions.minify,
        sourceMap: esbuildOptions.sourcemap,
        mainFields: esbuildOptions.mainFields,
        externalModules: esbuildOptions.external,
        // CDK runs esbuild in the repository root (`projectRoot`), so the aliases' relative paths
        // hold; it passes each as `--alias:<package>=<path>`.
        esbuildArgs: { '--alias': Object.entries(BUNDLE_ALIASES).map(([name, path]) => `${name}=${path}`) },
        forceDockerBundling: false,
        // The files the function's bundle carries beside its code (infra/bundle-files.ts); hooks
        // run only where this stack is bundled, so a synth that skips bundling skips them too.
        ...(bundleFiles(props.entry).length > 0
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (_inputDir: string, outputDir: string) =>
                  writeBundleFilesCommands(props.entry, outputDir),
              },
            }
          : {}),
      },
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
