import type { Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';
import { type Json, synthesize } from './cdk-app.ts';

/**
 * Reading the synthesized events stack's webhook resources (infra/webhook-delivery.ts) in the
 * template tests: its resources by type, the logical ids of the bus, rules, queues and both
 * functions, and the SSM parameters a template reads or writes.
 */
export const resourcesOf = (template: Template, type: string): [string, Json][] =>
  Object.entries(template.toJSON().Resources as Record<string, Json>).filter(
    ([, resource]) => resource.Type === type,
  );
export const list = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);
export const one = (found: [string, Json][], what: string): [string, Json] => {
  expect(found, what).toHaveLength(1);
  return found[0] as [string, Json];
};
export const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });

/**
 * The app synthesized into `outdir`, with its events and stages stacks' templates and the webhook
 * resources' ids (about 10 s, more on a busy machine: call it in a beforeAll with a long timeout).
 */
export function synthesizeWebhookStacks(outdir: string) {
  const app = synthesize({}, undefined, outdir);
  const events = app.template('-Events');
  return { app, events, stages: app.template('-Stages'), ids: webhookStackIds(events) };
}

/** Logical ids of the webhook resources of the events stack. */
export interface WebhookStackIds {
  bus: string;
  rule: string;
  schedule: string;
  queue: string;
  deadLetters: string;
  deliverer: string;
  sweeper: string;
}

/** Each found exactly once in the events stack, or the test fails naming what is not. */
export function webhookStackIds(events: Template): WebhookStackIds {
  const functionNamed = (name: string) =>
    one(
      resourcesOf(events, 'AWS::Lambda::Function').filter(([, fn]) => fn.Properties.FunctionName === name),
      name,
    )[0];
  const rules = resourcesOf(events, 'AWS::Events::Rule');
  const queues = resourcesOf(events, 'AWS::SQS::Queue').filter(([id]) => id.startsWith('Webhooks'));
  return {
    deliverer: functionNamed('bp-dev-DeliverWebhooks'),
    sweeper: functionNamed('bp-dev-SweepWebhooks'),
    bus: one(resourcesOf(events, 'AWS::Events::EventBus'), 'bus')[0],
    rule: one(
      rules.filter(([, rule]) => rule.Properties.EventBusName),
      'the rule on the bus',
    )[0],
    schedule: one(
      rules.filter(([, rule]) => rule.Properties.ScheduleExpression),
      'the schedule',
    )[0],
    queue: one(
      queues.filter(([, queue]) => queue.Properties.RedrivePolicy),
      'the events queue',
    )[0],
    deadLetters: one(
      queues.filter(([, queue]) => !queue.Properties.RedrivePolicy),
      'the dead-letter queue',
    )[0],
  };
}

/** The SSM parameter (by name) a template reads through `Ref` to one of its parameters. */
export const parameterRead = (template: Template, value: Json): string => {
  const parameter = template.toJSON().Parameters?.[value?.Ref];
  expect(String(parameter?.Type), JSON.stringify(value)).toMatch(/^AWS::SSM::Parameter::Value/);
  return parameter.Default;
};

/** The value a stack writes to an SSM parameter, by its name. */
export const parameterWrittenIn = (template: Template, name: string): Json =>
  resourcesOf(template, 'AWS::SSM::Parameter').find(
    ([, parameter]) => parameter.Properties.Name === name,
  )?.[1].Properties.Value;
