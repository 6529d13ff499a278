import { spawnSync } from 'node:child_process';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_FUNCTION_TIMEOUT_SECONDS } from '#lib/config/timeouts.ts';
import { CONSOLE_CORS } from '#lib/http/cors.ts';
import type { RouteDefinition } from '#lib/http/route.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { functionName } from '../../infra/function-name.ts';
import { ROOT_DIR } from '../../infra/local/paths.ts';
import { signsCursors } from '../../infra/service-function.ts';
import { type Json, type Resources, synthesize } from '../support/cdk-app.ts';

/** What a first deployment into a customer account needs, read from the templates. */
type Synth = ReturnType<typeof synthesize>;
/** Synthesizing the whole app takes ~10 s alone, more on a busy machine. */
const SYNTH_TIMEOUT = 180_000;
const ofType = (resources: Resources, type: string) =>
  Object.entries(resources).filter(([, resource]) => resource.Type === type);
/** The IAM statements that allow an SES action. */
const sesStatements = (resources: Resources): Json[] =>
  ofType(resources, 'AWS::IAM::Policy')
    .flatMap(([, policy]) => policy.Properties?.PolicyDocument.Statement as Json[])
    .filter((statement) => [statement.Action].flat().some((action: string) => action.startsWith('ses:')));
/** What follows the account in each ARN of a statement's Resource (built with Fn::Join). */
const arnTails = (resource: Json): string[] =>
  [resource].flat().map((arn: Json) => String(arn['Fn::Join'][1].at(-1)));

/**
 * No secret in any function's environment, where `lambda:GetFunctionConfiguration` would show it:
 * neither a dynamic reference CloudFormation resolves into the value, nor the cursor key itself.
 */
function expectNoSecretInEnvironments(resources: Resources) {
  const functions = ofType(resources, 'AWS::Lambda::Function');
  expect(functions.length).toBeGreaterThan(routeTable.length);
  for (const [id, fn] of functions) {
    const variables = fn.Properties?.Environment?.Variables ?? {};
    expect(JSON.stringify(variables), id).not.toContain('{{resolve:secretsmanager');
    expect(Object.keys(variables), id).not.toContain('CURSOR_SECRET');
  }
}

/** The Lambda function of one route (its description is the route's method and path). */
function routedFunction(resources: Resources, route: RouteDefinition | undefined): Resources[string] {
  const found = ofType(resources, 'AWS::Lambda::Function').find(
    ([, fn]) => route && fn.Properties?.Description === `${route.method} ${route.path}`,
  );
  if (!found) throw new Error(`no function for ${route?.operationId}`);
  return found[1];
}

/** The statements of the policies attached to a function's role. */
const roleStatements = (resources: Resources, fn: Resources[string]): Json[] => {
  const roleId = fn.Properties?.Role?.['Fn::GetAtt']?.[0];
  return ofType(resources, 'AWS::IAM::Policy')
    .filter(([, policy]) => policy.Properties?.Roles?.some((role: Json) => role.Ref === roleId))
    .flatMap(([, policy]) => policy.Properties?.PolicyDocument.Statement as Json[]);
};

describe('CDK app, as deployed by default', () => {
  let app: Synth;
  let stateful: Template;

  beforeAll(() => {
    app = synthesize();
    stateful = app.template('-Stateful');
  }, SYNTH_TIMEOUT);

  it('adds e-mail claims to access tokens with a V2_0 Pre Token Generation trigger', () => {
    stateful.hasResourceProperties('AWS::Cognito::UserPool', {
      LambdaConfig: {
        PreTokenGenerationConfig: { LambdaVersion: 'V2_0', LambdaArn: Match.anyValue() },
      },
      UserPoolTier: 'ESSENTIALS',
    });
    stateful.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('Pre Token Generation'),
      Runtime: 'nodejs22.x',
    });
  });

  it('gives the console app client the authorization-code grant only, on the console URL', () => {
    stateful.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      AllowedOAuthFlows: ['code'],
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthScopes: ['openid', 'email', 'profile'],
      CallbackURLs: ['https://console.example.com/auth/callback'],
      LogoutURLs: ['https://console.example.com/'],
      GenerateSecret: false,
      SupportedIdentityProviders: ['COGNITO'],
    });
    stateful.resourceCountIs('AWS::Cognito::UserPoolDomain', 1);
  });

  it('answers CORS for the console origin on the console API only', () => {
    const api = app.template('-Api');
    api.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      Description: Match.stringLikeRegexp('console'),
      CorsConfiguration: {
        AllowOrigins: ['https://console.example.com'],
        AllowHeaders: [...CONSOLE_CORS.allowHeaders],
        ExposeHeaders: [...CONSOLE_CORS.exposeHeaders],
        AllowMethods: [...CONSOLE_CORS.allowMethods],
        MaxAge: CONSOLE_CORS.maxAgeSeconds,
        AllowCredentials: false,
      },
    });
    // The assistant API's any-origin routes answer for themselves: API-level CORS would drop that.
    api.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      Description: Match.stringLikeRegexp('OAuth'),
      CorsConfiguration: Match.absent(),
    });
  });

  it('throttles every route; the routes every assistant calls are sized for all of them, the rest of the unauthenticated ones stay strict', () => {
    const stages = ofType(app.template('-Stages').toJSON().Resources, 'AWS::ApiGatewayV2::Stage');
    expect(stages).toHaveLength(2);
    for (const [, stage] of stages) {
      expect(stage.Properties?.DefaultRouteSettings).toMatchObject({
        ThrottlingRateLimit: 50,
        ThrottlingBurstLimit: 100,
      });
    }
    const routeSettings = Object.assign(
      {},
      ...stages.map(([, stage]) => stage.Properties?.RouteSettings ?? {}),
    );
    const assistantsCall = [
      'POST /oauth/token',
      'POST /oauth/revoke',
      'GET /.well-known/oauth-authorization-server',
      'GET /.well-known/oauth-protected-resource/mcp',
      'GET /.well-known/{proxy+}',
      'GET /oauth/jwks',
    ];
    const strict = ['POST /oauth/register', 'GET /oauth/authorize', 'GET /openapi.json'];
    for (const key of assistantsCall) {
      expect(routeSettings[key], key).toEqual({ ThrottlingRateLimit: 200, ThrottlingBurstLimit: 100 });
    }
    for (const key of strict) {
      expect(routeSettings[key], key).toEqual({ ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 });
    }
    // One caller sending junk at 10 a second filled the token route's bucket, which every
    // assistant's refresh shares: it now holds far more than the registration route's.
    for (const key of assistantsCall) {
      for (const limit of ['ThrottlingRateLimit', 'ThrottlingBurstLimit']) {
        expect(routeSettings[key][limit], `${key} ${limit}`).toBeGreaterThan(
          routeSettings['POST /oauth/register'][limit],
        );
      }
    }
    // Authenticated routes keep the stage default.
    expect(routeSettings['POST /mcp']).toBeUndefined();
  });

  it('creates the SES identity of the sender and lets only the invite function send, as that sender', () => {
    stateful.hasResourceProperties('AWS::SES::EmailIdentity', { EmailIdentity: 'no-reply@example.com' });
    const statements = sesStatements(app.resources());
    const senders = routeTable.filter((route) => route.permissions.sendEmail);

    expect(statements).toHaveLength(senders.length);
    for (const statement of statements) {
      // Any identity (the sandbox checks the recipient's too), but only as the configured sender.
      expect(arnTails(statement.Resource)).toEqual([
        ':identity/*',
        ':configuration-set/business-platform-dev',
      ]);
      expect(statement.Condition).toEqual({ StringEquals: { 'ses:FromAddress': 'no-reply@example.com' } });
    }
  });

  it('keeps secrets out of every environment; the paging functions get the cursor keys secret by ARN, and read only it', () => {
    const resources = app.resources();
    expectNoSecretInEnvironments(resources);
    stateful.hasResourceProperties('AWS::SecretsManager::Secret', {
      Description: Match.stringLikeRegexp('list cursors'),
      GenerateSecretString: Match.objectLike({ SecretStringTemplate: '{}', GenerateStringKey: 'current' }),
    });

    const paging = routeTable.filter(signsCursors);
    expect(paging.map((route) => route.operationId)).toEqual(
      expect.arrayContaining(['listFaqs', 'listChangeLog', 'handleMcp', 'listBusinessPhotos']),
    );
    const cursorKeysArn = routedFunction(resources, paging[0]).Properties?.Environment.Variables
      .CURSOR_SECRET_ID;
    expect(cursorKeysArn).toEqual({ Ref: expect.stringMatching(/cursorsecretarn/i) });
    for (const route of routeTable) {
      const fn = routedFunction(resources, route);
      const readsOfTheKeys = roleStatements(resources, fn).filter((statement) =>
        [statement.Resource]
          .flat()
          .some((resource: Json) => JSON.stringify(resource) === JSON.stringify(cursorKeysArn)),
      );
      const expected = signsCursors(route)
        ? [
            {
              Effect: 'Allow',
              Action: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'],
              Resource: cursorKeysArn,
            },
          ]
        : [];
      expect(fn.Properties?.Environment?.Variables?.CURSOR_SECRET_ID, route.operationId).toEqual(
        signsCursors(route) ? cursorKeysArn : undefined,
      );
      expect(readsOfTheKeys, route.operationId).toEqual(expected);
    }
  });

  it('stops every routed function before API Gateway would (≤ 28 s), and traces every function with X-Ray', () => {
    const functions = ofType(app.resources(), 'AWS::Lambda::Function').filter(
      ([, fn]) => fn.Properties?.Runtime === 'nodejs22.x',
    );
    expect(functions.length).toBeGreaterThan(routeTable.length);
    const routed = new Set(
      routeTable.map((route) => functionName(app.built.context.stage, route.operationId)),
    );
    const behindTheGateway = functions.filter(([, fn]) => routed.has(fn.Properties?.FunctionName));
    expect(behindTheGateway).toHaveLength(routeTable.length);
    for (const [id, fn] of behindTheGateway) {
      expect(fn.Properties?.Timeout, id).toBeLessThanOrEqual(MAX_FUNCTION_TIMEOUT_SECONDS);
    }
    // What no request waits for (the stream's publisher, the webhook deliveries, the Cognito
    // triggers) has its own timeout, asserted with its stack; it is traced all the same.
    for (const [id, fn] of functions) {
      expect(fn.Properties?.TracingConfig, id).toEqual({ Mode: 'Active' });
    }
  });

  it('protects the table and user pool from deletion by default, and expires old photo versions', () => {
    // Which policies keep what: cdk-retention.test.ts.
    stateful.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [Match.objectLike({ DeletionProtectionEnabled: true })],
    });
    stateful.hasResourceProperties('AWS::Cognito::UserPool', { DeletionProtection: 'ACTIVE' });
    stateful.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: [Match.objectLike({ NoncurrentVersionExpiration: { NoncurrentDays: 30 }, Status: 'Enabled' })],
      },
    });
  });

  it('hands values between stacks as SSM parameters, never exports', () => {
    for (const [name, template] of app.templates) {
      const json = JSON.stringify(template.toJSON());
      expect(json, name).not.toContain('Fn::ImportValue');
      expect(template.toJSON().Outputs ?? {}, name).not.toSatisfy((outputs: Json) =>
        Object.values(outputs).some((output: Json) => output.Export),
      );
    }
    stateful.hasResourceProperties('AWS::SSM::Parameter', { Name: '/business-platform/dev/table-name' });
  });

  it('outputs the API URLs, user pool and client ids, table and bucket names', () => {
    for (const output of [
      'TableName',
      'PhotosBucketName',
      'UserPoolId',
      'ConsoleClientId',
      'ConsoleIssuer',
    ]) {
      stateful.hasOutput(output, {});
    }
    const api = app.template('-Api');
    api.hasOutput('ConsoleApiUrl', {});
    api.hasOutput('AssistantApiUrl', {});
  });

  it('allows no wildcard action in any policy', () => {
    const actions = ofType(app.resources(), 'AWS::IAM::Policy')
      .flatMap(([, policy]) => policy.Properties?.PolicyDocument.Statement as Json[])
      .flatMap((statement) => [statement.Action].flat() as string[]);
    expect(actions.filter((action) => action.includes('*'))).toEqual([]);
  });

  it('alarms on the APIs and what no API sees, not on each routed function (cdk-operability has the set)', () => {
    const alarms = ofType(app.resources(), 'AWS::CloudWatch::Alarm');
    const apiAlarms = alarms.filter(([, alarm]) =>
      String(alarm.Properties?.AlarmDescription).includes('% of answers are 5xx'),
    );

    expect(apiAlarms).toHaveLength(2);
    expect(alarms.length).toBeLessThan(routeTable.length);
    for (const [, alarm] of alarms) expect(alarm.Properties?.AlarmActions).toHaveLength(1);
  });
});

describe('CDK app with other settings', () => {
  let app: Synth;

  beforeAll(() => {
    app = synthesize({
      stage: 'test',
      sesSender: 'hello@mail.customer.test',
      sesIdentity: 'mail.customer.test',
      sesIdentityMode: 'import',
      consoleUrl: 'https://console.customer.test',
      consoleOrigins: 'https://console.customer.test,https://staging-console.customer.test',
      consoleSignIn: 'srp',
      retainData: 'false',
      throttleRate: '200',
      throttleBurst: '400',
      tokenThrottleRate: '500',
      tokenThrottleBurst: '250',
      strictThrottleRate: '2',
      strictThrottleBurst: '4',
    });
  }, SYNTH_TIMEOUT);

  it('keeps secrets out of every environment', () => {
    expectNoSecretInEnvironments(app.resources());
  });

  it('takes the console origins from context', () => {
    app.template('-Api').hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: Match.objectLike({
        AllowOrigins: ['https://console.customer.test', 'https://staging-console.customer.test'],
      }),
    });
  });

  it('disables OAuth on the app client and has no domain when the console signs in by SRP', () => {
    const stateful = app.template('-Stateful');
    stateful.resourceCountIs('AWS::Cognito::UserPoolDomain', 0);
    stateful.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      AllowedOAuthFlowsUserPoolClient: false,
      ExplicitAuthFlows: Match.arrayWith(['ALLOW_USER_SRP_AUTH']),
    });
  });

  it('imports the SES domain identity and keeps the sender condition', () => {
    app.template('-Stateful').resourceCountIs('AWS::SES::EmailIdentity', 0);
    const [statement] = sesStatements(app.resources());
    expect(arnTails(statement.Resource)).toEqual([
      ':identity/*',
      ':configuration-set/business-platform-test',
    ]);
    expect(statement.Condition).toEqual({ StringEquals: { 'ses:FromAddress': 'hello@mail.customer.test' } });
  });

  it('deletes data with the stack when retainData is false', () => {
    const stateful = app.template('-Stateful');
    stateful.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Delete' });
    stateful.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [Match.objectLike({ DeletionProtectionEnabled: false })],
    });
  });

  it('takes the stage throttling from context', () => {
    const stages = ofType(app.template('-Stages').toJSON().Resources, 'AWS::ApiGatewayV2::Stage');
    for (const [, stage] of stages) {
      expect(stage.Properties?.DefaultRouteSettings).toMatchObject({
        ThrottlingRateLimit: 200,
        ThrottlingBurstLimit: 400,
      });
    }
    const routeSettings = Object.assign(
      {},
      ...stages.map(([, stage]) => stage.Properties?.RouteSettings ?? {}),
    );
    expect(routeSettings['POST /oauth/token']).toEqual({
      ThrottlingRateLimit: 500,
      ThrottlingBurstLimit: 250,
    });
    expect(routeSettings['POST /oauth/register']).toEqual({
      ThrottlingRateLimit: 2,
      ThrottlingBurstLimit: 4,
    });
  });
});

describe('synth outside dev', () => {
  it(
    'refuses the example.com defaults with one line',
    () => {
      const result = spawnSync(process.execPath, ['--import', 'tsx', 'infra/app.ts'], {
        cwd: ROOT_DIR,
        env: {
          ...process.env,
          CDK_CONTEXT_JSON: JSON.stringify({ stage: 'prod' }),
          CDK_OUTDIR: '/nonexistent',
        },
        encoding: 'utf8',
      });

      expect(result.status).toBe(1);
      expect(result.stderr.trim().split('\n')).toEqual([
        'error: stage "prod" still uses the example.com defaults for sesSender (no-reply@example.com) and consoleUrl (https://console.example.com): set them in stages/prod.json',
      ]);
    },
    SYNTH_TIMEOUT,
  );
});
