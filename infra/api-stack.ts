import { CfnOutput, Duration, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { type ApiSurface, apiSurfaces, CONSOLE_CORS } from '#lib/http/cors.ts';
import type { RouteDefinition } from '#lib/http/route.ts';
import { ServiceAlarms } from './alarms.ts';
import { ApiCustomDomain } from './api-custom-domain.ts';
import { consoleSite } from './console-site.ts';
import { ServiceDashboard } from './dashboard.ts';
import type { TriggerName } from './function-alarms.ts';
import { addAccessLogSignals, addFunctionSignals, SURFACES } from './log-signals.ts';
import { publishParameter, readParameter } from './parameters.ts';
import type { ServiceContext } from './service-context.ts';
import { type ServiceConfig, ServiceFunction, type StatefulRefs } from './service-function.ts';

/** The URL API Gateway gives an HTTP API, from its id alone. */
export const apiEndpoint = (scope: Construct, apiId: string) =>
  `https://${apiId}.execute-api.${Stack.of(scope).region}.${Stack.of(scope).urlSuffix}`;

/**
 * The two HTTP APIs (payload 2.0; lib/http/cors.ts says why two and which routes each takes) and
 * the alarm topic. Their stages live in the stages stack, deployed after the routes, so that
 * per-route throttling can name routes that exist.
 */
export class HttpApiStack extends Stack {
  readonly consoleApi: apigw.HttpApi;
  readonly assistantApi: apigw.HttpApi;
  readonly alarmTopic: sns.Topic;

  constructor(scope: Construct, id: string, props: StackProps & { context: ServiceContext }) {
    super(scope, id, props);
    const { context } = props;
    this.consoleApi = new apigw.HttpApi(this, 'ConsoleApi', {
      description: 'Business Platform Service: console, agent and internal APIs',
      createDefaultStage: false,
      corsPreflight: {
        allowOrigins: consoleSite(this, context).consoleOrigins,
        allowHeaders: [...CONSOLE_CORS.allowHeaders],
        exposeHeaders: [...CONSOLE_CORS.exposeHeaders],
        allowMethods: CONSOLE_CORS.allowMethods.map((method) => apigw.CorsHttpMethod[method]),
        maxAge: Duration.seconds(CONSOLE_CORS.maxAgeSeconds),
        allowCredentials: false,
      },
    });
    this.assistantApi = new apigw.HttpApi(this, 'AssistantApi', {
      description: 'Business Platform Service: OAuth server, discovery, MCP tool server, edits API',
      createDefaultStage: false,
    });
    this.alarmTopic = new sns.Topic(this, 'Alarms', {
      displayName: 'Business Platform alarms',
      enforceSSL: true,
    });
    // enforceSSL makes CDK write a topic policy, and a topic policy replaces SNS's default one:
    // without this statement CloudWatch may not publish and every alarm would notify nobody.
    this.alarmTopic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.alarmTopic.topicArn],
        conditions: { StringEquals: { 'aws:SourceAccount': this.account } },
      }),
    );
    if (context.alarmEmail)
      this.alarmTopic.addSubscription(new subscriptions.EmailSubscription(context.alarmEmail));
    Validations.of(this.alarmTopic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'The topic carries only CloudWatch alarm state changes (no customer data); CloudWatch cannot publish to a topic under the AWS-managed SNS key.',
    });

    publishParameter(this, context.stage, 'console-api-id', this.consoleApi.apiId);
    publishParameter(this, context.stage, 'assistant-api-id', this.assistantApi.apiId);
    publishParameter(this, context.stage, 'alarm-topic-arn', this.alarmTopic.topicArn);
    new CfnOutput(this, 'ConsoleApiUrl', {
      value: context.consoleApiDomain
        ? `https://${context.consoleApiDomain.domainName}`
        : apiEndpoint(this, this.consoleApi.apiId),
      description: 'Console, agent and internal APIs (/api/v1/…)',
    });
    new CfnOutput(this, 'AssistantApiUrl', {
      value: context.publicUrl ?? apiEndpoint(this, this.assistantApi.apiId),
      description: 'The OAuth issuer; the MCP tool server is <this>/mcp',
    });
  }
}

/**
 * The stages of both APIs (throttling, access logs and the metrics counted from them), their
 * custom domains when the settings name them (a domain's mapping needs its stage), the service's
 * alarms and its dashboard (the change-event publisher's too).
 */
export class StagesStack extends Stack {
  constructor(
    scope: Construct,
    id: string,
    props: StackProps & { context: ServiceContext; routes: readonly RouteDefinition[] },
  ) {
    super(scope, id, props);
    const { context } = props;
    const alarms = new ServiceAlarms(this, 'Alarms', {
      topicArn: readParameter(this, context.stage, 'alarm-topic-arn'),
    });
    const apiIds = {
      console: readParameter(this, context.stage, 'console-api-id'),
      assistant: readParameter(this, context.stage, 'assistant-api-id'),
    };
    for (const surface of ['console', 'assistant'] as const) {
      const apiId = apiIds[surface];
      const accessLogs = new logs.LogGroup(this, `${surface}AccessLogs`, {
        retention: logs.RetentionDays.THREE_MONTHS,
      });
      addAccessLogSignals(accessLogs, surface, accessLogs, context.stage);
      // Routes anyone may call get the throttle their row names (lib/http/route.ts, `throttle`):
      // one bucket per route shared by every caller, so the token routes' is sized for every
      // assistant at once and only the routes called once per connection stay strict.
      const throttles = { token: context.tokenThrottle, strict: context.strictThrottle };
      const stage = new apigw.CfnStage(this, `${surface}Stage`, {
        apiId,
        stageName: '$default',
        autoDeploy: true,
        defaultRouteSettings: {
          throttlingRateLimit: context.throttle.rateLimit,
          throttlingBurstLimit: context.throttle.burstLimit,
          detailedMetricsEnabled: false,
        },
        routeSettings: Object.fromEntries(
          props.routes.flatMap((route) => {
            if (!route.throttle || !apiSurfaces(route).includes(surface)) return [];
            const throttle = throttles[route.throttle];
            return [
              [
                `${route.method} ${route.path}`,
                // Plain JSON in CloudFormation's schema, so CloudFormation's own casing.
                { ThrottlingRateLimit: throttle.rateLimit, ThrottlingBurstLimit: throttle.burstLimit },
              ],
            ];
          }),
        ),
        accessLogSettings: {
          destinationArn: accessLogs.logGroupArn,
          format: JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            routeKey: '$context.routeKey',
            status: '$context.status',
            latency: '$context.responseLatency',
            integrationError: '$context.integrationErrorMessage',
          }),
        },
      });
      const label = surface === 'console' ? 'Console' : 'Assistant';
      alarms.watchHttpApi(label, apiId);
      alarms.watchUnauthorized(
        label,
        context.stage,
        SURFACES.filter((candidate) => candidate.api === surface).map((candidate) => candidate.name),
      );
      const domain = surface === 'console' ? context.consoleApiDomain : context.assistantDomain;
      if (domain) {
        new ApiCustomDomain(this, `${surface}Domain`, {
          label,
          api: apigw.HttpApi.fromHttpApiAttributes(this, `${surface}Api`, { httpApiId: apiId }),
          stage,
          domain,
          hostedZone: context.hostedZone,
        });
      }
    }
    alarms.watchMail(context.stage);
    alarms.watchReuseRevocations(context.stage);
    const tableName = readParameter(this, context.stage, 'table-name');
    alarms.watchTable(tableName);
    alarms.watchLambdaThrottles();
    // The Cognito triggers exist only when the console signs in with the stage's own user pool.
    const triggers: Partial<Record<TriggerName, string>> = context.externalIssuer
      ? {}
      : {
          PreSignUp: readParameter(this, context.stage, 'pre-sign-up-function-name'),
          PostConfirmation: readParameter(this, context.stage, 'post-confirmation-function-name'),
          PreTokenGeneration: readParameter(this, context.stage, 'pre-token-generation-function-name'),
        };
    for (const [name, functionName] of Object.entries(triggers) as [TriggerName, string][]) {
      alarms.watchTrigger(name, functionName);
    }
    // The change-event publisher (infra/events-stack.ts): nothing but these alarms sees it fail.
    const events = {
      publisherFunctionName: readParameter(this, context.stage, 'events-publisher-function-name'),
      deadLetterQueueName: readParameter(this, context.stage, 'events-dead-letter-queue-name'),
    };
    alarms.watchEventPublisher(events.publisherFunctionName, events.deadLetterQueueName);
    // The webhook deliveries (infra/webhook-delivery.ts), in the events stack too.
    const webhooks = {
      delivererFunctionName: readParameter(this, context.stage, 'webhook-deliverer-function-name'),
      sweeperFunctionName: readParameter(this, context.stage, 'webhook-sweeper-function-name'),
      queueName: readParameter(this, context.stage, 'webhook-queue-name'),
      deadLetterQueueName: readParameter(this, context.stage, 'webhook-dead-letter-queue-name'),
    };
    alarms.watchWebhooks(context.stage, webhooks);
    new ServiceDashboard(this, 'Dashboard', {
      stage: context.stage,
      apiIds,
      tableName,
      triggers,
      events,
      webhooks,
      alarms: alarms.alarms,
    });
  }
}

export interface RoutesStackProps extends StackProps {
  area: string;
  routes: readonly RouteDefinition[];
  context: ServiceContext;
  config: Omit<ServiceConfig, 'publicUrl' | 'consoleUrl' | 'mcpAllowedOrigins'>;
}

/**
 * The functions and routes of one area. Splitting by area keeps every stack far below
 * CloudFormation's 500-resource limit (each operation costs about 8 resources). Everything from
 * other stacks comes through SSM parameters, so each stack deploys on its own.
 */
export class RoutesStack extends Stack {
  constructor(scope: Construct, id: string, props: RoutesStackProps) {
    super(scope, id, props);
    const { stage } = props.context;
    const read = (key: Parameters<typeof readParameter>[2]) => readParameter(this, stage, key);
    // Read on first use: a parameter no function of this area needs stays out of its template.
    const refs = {} as StatefulRefs;
    const keys: Record<keyof StatefulRefs, Parameters<typeof readParameter>[2]> = {
      tableName: 'table-name',
      tableArn: 'table-arn',
      photosBucketName: 'photos-bucket-name',
      photosBucketArn: 'photos-bucket-arn',
      internalApiKeysArn: 'internal-api-keys-arn',
      oauthSigningKeyArn: 'oauth-signing-key-arn',
      cursorSecretArn: 'cursor-secret-arn',
      jwtIssuer: 'jwt-issuer',
      jwtAudience: 'jwt-audience',
      jwtProfile: 'jwt-profile',
      jwtKeySet: 'jwt-key-set',
      userPoolId: 'user-pool-id',
      userPoolArn: 'user-pool-arn',
    };
    for (const [name, key] of Object.entries(keys)) {
      Object.defineProperty(refs, name, { get: () => read(key), enumerable: true });
    }
    const imported = new Map<ApiSurface, apigw.IHttpApi>();
    const api = (surface: ApiSurface): apigw.IHttpApi => {
      let found = imported.get(surface);
      if (!found) {
        found = apigw.HttpApi.fromHttpApiAttributes(this, `${surface}Api`, {
          httpApiId: read(`${surface}-api-id`),
        });
        imported.set(surface, found);
      }
      return found;
    };
    const stack = this;
    const site = consoleSite(this, props.context);
    // The OAuth issuer must be the URL clients use: a custom domain when there is one.
    const config: ServiceConfig = {
      ...props.config,
      // Read lazily too: the pages' URL is a parameter only the areas that link to the console need.
      get consoleUrl() {
        return site.consoleUrl;
      },
      get mcpAllowedOrigins() {
        return site.mcpAllowedOrigins;
      },
      // Read lazily too: only the areas that serve OAuth, consent, edits or MCP need it.
      get publicUrl() {
        return props.context.publicUrl ?? apiEndpoint(stack, api('assistant').apiId);
      },
    };
    for (const route of props.routes) {
      const { function: fn, logGroup } = new ServiceFunction(this, route.operationId, route, config, refs);
      // No alarm per function: its errors are 5xx answers of its API, alarmed as a rate there.
      addFunctionSignals(this, route.operationId, logGroup, route, stage);
      for (const surface of apiSurfaces(route)) {
        const prefix = surface === 'console' ? route.operationId : `${route.operationId}Assistant`;
        const integration = new HttpLambdaIntegration(`${prefix}Integration`, fn);
        // Browser clients on any origin: their preflight reaches the same function (lib/http/cors.ts);
        // so do the methods the function only refuses (405 with allow, rather than API Gateway's 404).
        const methods = [
          route.method,
          ...(route.cors === 'any-origin' ? ['OPTIONS' as const] : []),
          ...(route.rejectsMethods ?? []),
        ];
        for (const method of methods) {
          const suffix = method === route.method ? 'Route' : method === 'OPTIONS' ? 'Preflight' : method;
          new apigw.HttpRoute(this, `${prefix}${suffix}`, {
            httpApi: api(surface),
            routeKey: apigw.HttpRouteKey.with(route.path, apigw.HttpMethod[method]),
            integration,
          });
        }
      }
    }
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Every handler authenticates in code (JWT via JWKS, agent key, internal key) with the same code the local harness runs; an API Gateway authorizer would be a second, untested path.',
    });
  }
}
