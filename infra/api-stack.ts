import { Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { RouteDefinition } from '#lib/http/route.ts';
import { type ServiceConfig, ServiceFunction } from './service-function.ts';

/** The HTTP API itself (payload 2.0), with access logs on its default stage. */
export class HttpApiStack extends Stack {
  readonly httpApi: apigw.HttpApi;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    this.httpApi = new apigw.HttpApi(this, 'Api', { description: 'Business Platform Service' });
    const accessLogs = new logs.LogGroup(this, 'AccessLogs', { retention: logs.RetentionDays.THREE_MONTHS });
    const stage = this.httpApi.defaultStage?.node.defaultChild as apigw.CfnStage;
    stage.accessLogSettings = {
      destinationArn: accessLogs.logGroupArn,
      format: JSON.stringify({
        requestId: '$context.requestId',
        ip: '$context.identity.sourceIp',
        routeKey: '$context.routeKey',
        status: '$context.status',
        latency: '$context.responseLatency',
        integrationError: '$context.integrationErrorMessage',
      }),
    };
  }
}

export interface RoutesStackProps extends StackProps {
  area: string;
  routes: readonly RouteDefinition[];
  httpApi: apigw.IHttpApi;
  config: ServiceConfig;
}

/**
 * The functions and routes of one area. Splitting by area keeps every stack far below
 * CloudFormation's 500-resource limit (each operation costs about 7 resources).
 */
export class RoutesStack extends Stack {
  constructor(scope: Construct, id: string, props: RoutesStackProps) {
    super(scope, id, props);
    for (const route of props.routes) {
      const { function: fn } = new ServiceFunction(this, route.operationId, route, props.config);
      const integration = new HttpLambdaIntegration(`${route.operationId}Integration`, fn);
      new apigw.HttpRoute(this, `${route.operationId}Route`, {
        httpApi: props.httpApi,
        routeKey: apigw.HttpRouteKey.with(route.path, apigw.HttpMethod[route.method]),
        integration,
      });
      // Browser clients on any origin: their preflight reaches the same function (DESIGN §9);
      // so do the methods the function only refuses (405 with allow, rather than API Gateway's 404).
      const extraMethods = [
        ...(route.cors === 'any-origin' ? ['OPTIONS' as const] : []),
        ...(route.rejectsMethods ?? []),
      ];
      for (const method of extraMethods) {
        new apigw.HttpRoute(this, `${route.operationId}${method === 'OPTIONS' ? 'Preflight' : method}`, {
          httpApi: props.httpApi,
          routeKey: apigw.HttpRouteKey.with(route.path, apigw.HttpMethod[method]),
          integration,
        });
      }
    }
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Every handler authenticates in code (JWT via JWKS, agent key, internal key) with the same code the local harness runs; an API Gateway authorizer would be a second, untested path.',
    });
  }
}
