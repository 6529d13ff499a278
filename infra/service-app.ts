import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { RouteDefinition } from '#lib/http/route.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { HttpApiStack, RoutesStack } from './api-stack.ts';
import { StatefulStack } from './stateful-stack.ts';

export interface ServiceAppOptions {
  app?: App;
  routes?: readonly RouteDefinition[];
}

/**
 * The whole service as CDK stacks: stateful resources, the HTTP API, and one routes stack per
 * area of the route table. Settings come from CDK context (cdk.json or -c key=value).
 */
export function buildServiceApp({ app = new App(), routes = routeTable }: ServiceAppOptions = {}) {
  const context = (key: string): string | undefined => app.node.tryGetContext(key);
  const stage = context('stage') ?? 'dev';
  const prefix = `BusinessPlatform-${stage}`;
  const externalIssuer = context('issuer') && context('issuerAudience');

  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

  const stateful = new StatefulStack(app, `${prefix}-Stateful`, {
    retainData: stage === 'prod',
    ...(externalIssuer
      ? {
          externalIssuer: {
            issuer: context('issuer') as string,
            audience: context('issuerAudience') as string,
          },
        }
      : {}),
  });
  const api = new HttpApiStack(app, `${prefix}-Api`);
  const consoleUrl = context('consoleUrl') ?? 'https://console.example.com';
  const config = {
    stateful,
    sesSender: context('sesSender') ?? 'no-reply@example.com',
    consoleUrl,
    // Browser pages that may call /mcp (DNS-rebinding protection): the console unless told otherwise.
    photosPublicBaseUrl: context('photosPublicBaseUrl'),
    mcpAllowedOrigins: (context('mcpAllowedOrigins') ?? new URL(consoleUrl).origin)
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    // The OAuth issuer must be the URL clients use: a custom domain when there is one.
    publicUrl: (context('publicUrl') ?? api.httpApi.apiEndpoint).replace(/\/+$/, ''),
  };

  const areas = [...new Set(routes.map((route) => route.area))];
  const routeStacks = areas.map(
    (area) =>
      new RoutesStack(app, `${prefix}-Routes-${area}`, {
        area,
        routes: routes.filter((route) => route.area === area),
        httpApi: api.httpApi,
        config,
      }),
  );
  return { app, stateful, api, routeStacks };
}
