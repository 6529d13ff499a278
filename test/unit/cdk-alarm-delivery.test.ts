import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Json, synthesize } from '../support/cdk-app.ts';

/** Synthesizing the whole app takes ~10 s alone, more on a busy machine. */
const SYNTH_TIMEOUT = 180_000;
/**
 * CloudWatch's price of a standard-resolution alarm, per metric it reads (us-east-1): the pricing
 * page (https://aws.amazon.com/cloudwatch/pricing/) bills alarms by "alarm metric", $0.10 a month
 * for standard resolution, and a metric-math alarm counts each metric its expression reads.
 */
const ALARM_METRIC_MONTHLY_USD = 0.1;

interface Located {
  stack: string;
  logicalId: string;
}

/**
 * Follows one alarm action to the SNS topic it names, the way CloudFormation resolves it: a `Ref`
 * to a topic in the same template, or a `Ref` to an SSM-parameter template parameter whose
 * parameter another stack writes with a `Ref` to its topic.
 */
function topicOfAction(templates: Map<string, Template>, stack: string, action: Json): Located {
  const json = (name: string) => templates.get(name)?.toJSON() as Json;
  const ref = action?.Ref as string | undefined;
  if (!ref) throw new Error(`${stack}: alarm action ${JSON.stringify(action)} is not a Ref`);
  const template = json(stack);
  if (template.Resources?.[ref]?.Type === 'AWS::SNS::Topic') return { stack, logicalId: ref };
  const parameter = template.Parameters?.[ref];
  if (!parameter || !String(parameter.Type).startsWith('AWS::SSM::Parameter::Value')) {
    throw new Error(`${stack}: alarm action ${ref} is neither a topic nor an SSM parameter`);
  }
  for (const [name] of templates) {
    for (const [, resource] of Object.entries(json(name).Resources ?? {}) as [string, Json][]) {
      if (resource.Type !== 'AWS::SSM::Parameter' || resource.Properties?.Name !== parameter.Default)
        continue;
      const topic = resource.Properties.Value?.Ref as string | undefined;
      if (topic && json(name).Resources?.[topic]?.Type === 'AWS::SNS::Topic')
        return { stack: name, logicalId: topic };
      throw new Error(`${name}: parameter ${parameter.Default} does not hold a topic of that stack`);
    }
  }
  throw new Error(`no stack writes the SSM parameter ${parameter.Default}`);
}

/** The statements of every topic policy that covers this topic. */
function topicPolicyStatements(templates: Map<string, Template>, topic: Located): Json[] {
  const resources: Record<string, Json> = templates.get(topic.stack)?.toJSON().Resources ?? {};
  return Object.values(resources)
    .filter(
      (resource) =>
        resource.Type === 'AWS::SNS::TopicPolicy' &&
        (resource.Properties?.Topics ?? []).some((entry: Json) => entry?.Ref === topic.logicalId),
    )
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Json[]);
}

/** Whether a statement lets CloudWatch alarms of this account publish to the topic. */
const letsCloudWatchPublish = (statement: Json, topic: Located): boolean =>
  statement.Effect === 'Allow' &&
  [statement.Principal?.Service].flat().includes('cloudwatch.amazonaws.com') &&
  [statement.Action].flat().includes('sns:Publish') &&
  statement.Resource?.Ref === topic.logicalId &&
  statement.Condition?.StringEquals?.['aws:SourceAccount'] !== undefined;

describe('alarm delivery', () => {
  let templates: Map<string, Template>;

  beforeAll(() => {
    ({ templates } = synthesize({ alarmEmail: 'oncall@example.com' }));
  }, SYNTH_TIMEOUT);

  it('lets CloudWatch publish to the topic of every alarm action, scoped to this account', () => {
    let actions = 0;
    for (const [stack, template] of templates) {
      const alarms = Object.entries(template.toJSON().Resources as Record<string, Json>).filter(
        ([, resource]) => resource.Type === 'AWS::CloudWatch::Alarm',
      );
      for (const [id, alarm] of alarms) {
        for (const action of alarm.Properties.AlarmActions ?? []) {
          actions += 1;
          const topic = topicOfAction(templates, stack, action);
          const statements = topicPolicyStatements(templates, topic);
          expect(statements.length, `${stack}/${id}: its topic has no policy`).toBeGreaterThan(0);
          expect(
            statements.some((statement) => letsCloudWatchPublish(statement, topic)),
            `${stack}/${id}: the topic policy of ${topic.logicalId} does not let CloudWatch publish`,
          ).toBe(true);
        }
      }
    }
    expect(actions, 'no alarm has an action at all').toBeGreaterThan(0);
  });

  it('still refuses publishing over plain HTTP', () => {
    const statements = [...templates.values()].flatMap((template) =>
      Object.values(template.toJSON().Resources as Record<string, Json>)
        .filter((resource) => resource.Type === 'AWS::SNS::TopicPolicy')
        .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Json[]),
    );
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
  });

  it('costs what the deploy guide and the README say: USD 0.10 a month per metric an alarm reads', () => {
    const alarms = [...templates.values()].flatMap((template) =>
      Object.values(template.toJSON().Resources as Record<string, Json>).filter(
        (resource) => resource.Type === 'AWS::CloudWatch::Alarm',
      ),
    );
    const metrics = alarms.reduce(
      (sum, alarm) => sum + (alarm.Properties.Metrics?.filter((query: Json) => query.MetricStat).length ?? 1),
      0,
    );
    const monthly = (metrics * ALARM_METRIC_MONTHLY_USD).toFixed(2);
    const read = (file: string) => readFileSync(join(import.meta.dirname, '../..', file), 'utf8');
    expect(read('docs/deploy.md')).toContain(
      `${alarms.length} alarms reading ${metrics} metrics | $${monthly} |`,
    );
    expect(read('README.md')).toContain(
      `${alarms.length} alarms reading ${metrics} metrics, $${monthly} a month`,
    );
  });

  it('subscribes the alarm e-mail address to the topic', () => {
    const subscriptions = [...templates.values()].flatMap((template) =>
      Object.values(template.toJSON().Resources as Record<string, Json>).filter(
        (resource) => resource.Type === 'AWS::SNS::Subscription',
      ),
    );
    expect(subscriptions).toContainEqual(
      expect.objectContaining({
        Properties: expect.objectContaining({ Protocol: 'email', Endpoint: 'oncall@example.com' }),
      }),
    );
  });
});
