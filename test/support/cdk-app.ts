import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { RouteDefinition } from '#lib/http/route.ts';
import { ROOT_DIR } from '../../infra/local/paths.ts';
import { buildServiceApp } from '../../infra/service-app.ts';

/** The app as `npm run synth` builds it, minus bundling (the bench builds and imports every bundle). */
export function newApp(extraContext: Record<string, unknown> = {}) {
  const { context } = JSON.parse(readFileSync(join(ROOT_DIR, 'cdk.json'), 'utf8'));
  return new App({ context: { ...context, 'aws:cdk:bundling-stacks': [], ...extraContext } });
}

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation templates are untyped JSON.
export type Json = any;
export type Resources = Record<
  string,
  { Type: string; Properties?: Record<string, Json>; DeletionPolicy?: string; UpdateReplacePolicy?: string }
>;

/**
 * Every stack's template of one build, by stack name, and all their resources together; `routes`
 * builds the app over other route rows than the route table's.
 */
export function synthesize(extraContext: Record<string, unknown> = {}, routes?: readonly RouteDefinition[]) {
  const built = buildServiceApp({ app: newApp(extraContext), ...(routes ? { routes } : {}) });
  const stacks = [
    ...(built.pages ? [built.pages] : []),
    built.stateful,
    built.api,
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
