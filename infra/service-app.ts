import { App, Aspects, Tags, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { RouteDefinition } from '#lib/http/route.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { HttpApiStack, RoutesStack, StagesStack } from './api-stack.ts';
import { ConsolePagesFilesStack, ConsolePagesStack } from './console-pages-stack.ts';
import { EventsStack } from './events-stack.ts';
import { HandlerLogGroups } from './handler-log-groups.ts';
import { readServiceContext } from './service-context.ts';
import { StatefulStack } from './stateful-stack.ts';

export interface ServiceAppOptions {
  app?: App;
  routes?: readonly RouteDefinition[];
}

/**
 * The whole service as CDK stacks: stateful resources, the two HTTP APIs, change events (the bus
 * and its publisher), one routes stack per area of the route table, and the APIs' stages; with `consolePages`, the pages' site first and
 * their files last (infra/console-pages-stack.ts says why). Settings come from CDK context (cdk.json or
 * -c key=value, see infra/service-context.ts); stacks find each other through SSM parameters.
 */
export function buildServiceApp({ app = new App(), routes = routeTable }: ServiceAppOptions = {}) {
  const context = readServiceContext(app);
  const prefix = `BusinessPlatform-${context.stage}`;

  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  // Every stack and every resource that takes tags: cost reports and clean-up find the stage by them.
  Tags.of(app).add('service', 'business-platform');
  Tags.of(app).add('stage', context.stage);
  // CDK's own handler functions get log groups that expire, like ours.
  Aspects.of(app).add(new HandlerLogGroups());

  const pages = context.consolePages
    ? new ConsolePagesStack(app, `${prefix}-ConsolePages`, { context })
    : undefined;
  const stateful = new StatefulStack(app, `${prefix}-Stateful`, { context });
  const api = new HttpApiStack(app, `${prefix}-Api`, { context });
  // Change events: the bus and the publisher on the table's stream (infra/events-stack.ts says why apart).
  const events = new EventsStack(app, `${prefix}-Events`, { context });
  events.addStackDependency(stateful);
  // The site's URL is read by the app client (stateful), the CORS (api) and the routes.
  if (pages) for (const stack of [stateful, api]) stack.addStackDependency(pages);
  const config = {
    stage: context.stage,
    sesSender: context.sesSender,
    photosPublicBaseUrl: context.photosPublicBaseUrl,
    consoleUserPool: context.externalIssuer === undefined,
  };

  const areas = [...new Set(routes.map((route) => route.area))];
  const routeStacks = areas.map((area) => {
    const stack = new RoutesStack(app, `${prefix}-Routes-${area}`, {
      area,
      routes: routes.filter((route) => route.area === area),
      context,
      config,
    });
    // No references between stacks (SSM parameters instead), so the order is stated here.
    stack.addStackDependency(stateful);
    stack.addStackDependency(api);
    return stack;
  });
  const stages = new StagesStack(app, `${prefix}-Stages`, { context, routes });
  // The stages stack reads the table's, the Cognito triggers' and the publisher's names too (alarms, dashboard).
  for (const stack of [stateful, api, events, ...routeStacks]) stages.addStackDependency(stack);
  let pagesFiles: ConsolePagesFilesStack | undefined;
  if (pages) {
    // Last: config.json names the API and the app client, which must be live when the pages are.
    pagesFiles = new ConsolePagesFilesStack(app, `${prefix}-ConsolePagesFiles`, { context });
    for (const stack of [pages, stateful, stages]) pagesFiles.addStackDependency(stack);
  }
  return { app, context, pages, stateful, api, events, routeStacks, stages, pagesFiles };
}
