import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { RouteDefinition } from '#lib/http/route.ts';
import { ROOT_DIR } from '../../infra/local/paths.ts';
import { buildServiceApp } from '../../infra/service-app.ts';

/**
 * The app as `npm run synth` builds it, minus bundling (the bench builds and imports every bundle);
 * its cloud assembly goes to `outdir` when given (a test's temporary folder, which it removes),
 * else to a temporary folder of CDK's.
 */
export function newApp(extraContext: Record<string, unknown> = {}, outdir?: string) {
  const { context } = JSON.parse(readFileSync(join(ROOT_DIR, 'cdk.json'), 'utf8'));
  return new App({
    ...(outdir ? { outdir } : {}),
    context: { ...context, 'aws:cdk:bundling-stacks': [], ...extraContext },
  });
}

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation templates are untyped JSON.
export type Json = any;
export type Resources = Record<
  string,
  { Type: string; Properties?: Record<string, Json>; DeletionPolicy?: string; UpdateReplacePolicy?: string }
>;

/**
 * Every stack's template of one build, by stack name, and all their resources together; `routes`
 * builds the app over other route rows than the route table's; `outdir` as newApp's.
 */
export function synthesize(
  extraContext: Record<string, unknown> = {},
  routes?: readonly RouteDefinition[],
  outdir?: string,
) {
  const built = buildServiceApp({ app: newApp(extraContext, outdir), ...(routes ? { routes } : {}) });
  const stacks = [
    ...(built.pages ? [built.pages] : []),
    built.stateful,
    built.api,
    built.events,
    ...built.routeStacks,
    built.stages,
    ...(built.pagesFiles ? [built.pagesFiles] : []),
  ];
  const templates = new Map(stacks.map((stack) => [stack.stackName, Template.fromStack(stack)]));
  const resources = (): Resources =>
    Object.assign({}, ...[...templates.values()].map((template) => template.toJSON().Resources as Resources));
  const template = (suffix: string): Template => {
    const found = [...templates].find(([name]) => name.endsWith(suffix));
    if (!found) throw new Error(`no stack ending in ${suffix}`);
    return found[1];
  };
  return { built, stacks, templates, resources, template };
}
