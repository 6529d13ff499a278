import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNAL_FIELDS } from '#lib/observability/signal-fields.ts';
import {
  WEBHOOK_FAILURES_THRESHOLD,
  WEBHOOK_FUNCTION_ERRORS_THRESHOLD,
} from '../../infra/alarm-thresholds.ts';
import { dashboardBody } from '../../infra/dashboard-picture.ts';
import type { Json } from '../support/cdk-app.ts';
import {
  one,
  parameterRead,
  parameterWrittenIn,
  resourcesOf,
  synthesizeWebhookStacks,
  type WebhookStackIds,
} from '../support/webhook-stack-template.ts';

/** Synthesizing the whole app takes ~10 s alone, more on a busy machine. */
const SYNTH_TIMEOUT = 180_000;

/** What operators see of webhook deliveries (infra/function-alarms.ts, infra/dashboard.ts). */
describe('webhook deliveries on AWS: the metric, alarms and dashboard', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'bps-cdk-webhook-alarms-'));
  let events: Template;
  let stages: Template;
  let ids: WebhookStackIds;

  beforeAll(() => {
    ({ events, stages, ids } = synthesizeWebhookStacks(outdir));
  }, SYNTH_TIMEOUT);
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  const parameterWritten = (name: string): Json => parameterWrittenIn(events, name);

  it("counts deliveries by outcome from both functions' logs, on the field the run logs", () => {
    for (const id of [ids.deliverer, ids.sweeper]) {
      const logsId = events.toJSON().Resources[id].Properties.LoggingConfig.LogGroup.Ref;
      const [, filter] = one(
        resourcesOf(events, 'AWS::Logs::MetricFilter').filter(
          ([, candidate]) => candidate.Properties.LogGroupName?.Ref === logsId,
        ),
        `filter of ${id}`,
      );
      expect(filter.Properties).toEqual({
        LogGroupName: { Ref: logsId },
        FilterPattern: `{ $.${SIGNAL_FIELDS.webhookDelivery} = "*" }`,
        MetricTransformations: [
          {
            MetricNamespace: 'BusinessPlatform/dev',
            MetricName: 'WebhookDeliveries',
            MetricValue: '1',
            Dimensions: [{ Key: 'Outcome', Value: `$.${SIGNAL_FIELDS.webhookDelivery}` }],
          },
        ],
      });
    }
  });

  it("alarms on failing deliveries, disabled subscriptions, dead letters and both functions' errors, by what the events stack publishes", () => {
    const alarm = (prefix: string) => {
      const found = resourcesOf(stages, 'AWS::CloudWatch::Alarm').find(([id]) => id.startsWith(prefix))?.[1];
      expect(found, prefix).toBeDefined();
      expect(found.Properties.AlarmActions, prefix).toHaveLength(1);
      expect(found.Properties.TreatMissingData, prefix).toBe('notBreaching');
      expect(found.Properties.AlarmDescription, prefix).toMatch(/First look/);
      return found.Properties;
    };
    /** The one dimension of an alarm, and what the events stack writes to the parameter it reads. */
    const dimension = (properties: Json) => {
      const [only] = properties.Dimensions;
      return { name: only.Name, written: parameterWritten(parameterRead(stages, only.Value)) };
    };
    const outcome = (value: string) => ({
      Namespace: 'BusinessPlatform/dev',
      MetricName: 'WebhookDeliveries',
      Dimensions: [{ Name: 'Outcome', Value: value }],
      Statistic: 'Sum',
      Period: 900,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expect(alarm('AlarmsWebhookDeliveriesFailing')).toMatchObject({
      ...outcome('failed'),
      Threshold: WEBHOOK_FAILURES_THRESHOLD,
    });
    // One endpoint that is down fails about 3 times in 15 minutes: it alone does not page.
    expect(WEBHOOK_FAILURES_THRESHOLD).toBeGreaterThan(3);
    expect(alarm('AlarmsWebhookSubscriptionsDisabled')).toMatchObject({
      ...outcome('disabled'),
      Threshold: 1,
    });

    const deadLetters = alarm('AlarmsWebhookDeadLetters');
    expect(deadLetters).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Statistic: 'Maximum',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 1,
    });
    expect(dimension(deadLetters)).toEqual({
      name: 'QueueName',
      written: { 'Fn::GetAtt': [ids.deadLetters, 'QueueName'] },
    });

    for (const [prefix, functionId] of [
      ['AlarmsWebhookDelivererErrors', ids.deliverer],
      ['AlarmsWebhookSweeperErrors', ids.sweeper],
    ] as const) {
      const errors = alarm(prefix);
      expect(errors).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Statistic: 'Sum',
        Period: 900,
        Threshold: WEBHOOK_FUNCTION_ERRORS_THRESHOLD,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
      expect(dimension(errors)).toEqual({ name: 'FunctionName', written: { Ref: functionId } });
    }
  });

  it('shows deliveries by outcome, both functions and both queues on the dashboard, and the alarms', () => {
    const body = dashboardBody(stages.toJSON());
    const widget = (title: string) => {
      const found = body.widgets.find((candidate) => candidate.properties.title === title);
      expect(found, title).toBeDefined();
      return found?.properties.metrics ?? [];
    };
    const described = (title: string) =>
      widget(title).map((entry: Json[]) => {
        const options = entry.find((part) => typeof part === 'object') ?? {};
        if (options.expression) return options.expression as string;
        return entry.filter((part) => typeof part === 'string').join(' ');
      });
    expect(described('Webhooks: deliveries by outcome')).toEqual([
      `SEARCH('{BusinessPlatform/dev,Outcome} MetricName="WebhookDeliveries"', 'Sum', 300)`,
    ]);
    expect(described('Webhooks: delivery and sweep invocations and errors')).toEqual([
      'AWS/Lambda Invocations FunctionName <webhook-deliverer-function-name>',
      'AWS/Lambda Invocations FunctionName <webhook-sweeper-function-name>',
      'AWS/Lambda Errors FunctionName <webhook-deliverer-function-name>',
      'AWS/Lambda Errors FunctionName <webhook-sweeper-function-name>',
    ]);
    expect(described('Webhooks: events queue and dead letters (messages; oldest, s)')).toEqual([
      'AWS/SQS ApproximateNumberOfMessagesVisible QueueName <webhook-queue-name>',
      'AWS/SQS ApproximateNumberOfMessagesVisible QueueName <webhook-dead-letter-queue-name>',
      'AWS/SQS ApproximateAgeOfOldestMessage QueueName <webhook-queue-name>',
    ]);
    // The row sits under the change events' row.
    const y = (title: string) =>
      body.widgets.find((candidate) => candidate.properties.title === title)?.y ?? -1;
    expect(y('Webhooks: deliveries by outcome')).toBeGreaterThan(
      y('Change events: dead-letter queue (messages)'),
    );
    const shown = JSON.stringify(
      body.widgets.find((candidate) => candidate.type === 'alarm')?.properties.alarms,
    );
    for (const id of [
      'AlarmsWebhookDeliveriesFailing',
      'AlarmsWebhookSubscriptionsDisabled',
      'AlarmsWebhookDeadLetters',
      'AlarmsWebhookDelivererErrors',
      'AlarmsWebhookSweeperErrors',
    ]) {
      expect(shown).toContain(id);
    }
  });
});
