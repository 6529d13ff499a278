import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_FILTER_PATTERNS } from '#lib/events/stream-filter.ts';
import { dashboardBody } from '../../infra/dashboard-picture.ts';
import { ARCHIVE_RETENTION_DAYS, EVENTS_SOURCE } from '../../infra/events-stack.ts';
import { type Json, synthesize } from '../support/cdk-app.ts';

/** Synthesizing the whole app takes ~10 s alone, more on a busy machine. */
const SYNTH_TIMEOUT = 180_000;

const resourcesOf = (template: Template, type: string): [string, Json][] =>
  Object.entries(template.toJSON().Resources as Record<string, Json>).filter(
    ([, resource]) => resource.Type === type,
  );
const only = (template: Template, type: string): [string, Json] => {
  const found = resourcesOf(template, type);
  expect(found, type).toHaveLength(1);
  return found[0] as [string, Json];
};
const list = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);
/** The one resource of a type whose logical id starts with `prefix` (the stack holds others of it). */
const one = (template: Template, type: string, prefix: string): [string, Json] => {
  const found = resourcesOf(template, type).filter(([id]) => id.startsWith(prefix));
  expect(found, `${type} ${prefix}…`).toHaveLength(1);
  return found[0] as [string, Json];
};
/**
 * The publisher's own resources: the events stack also holds the webhook deliveries' functions,
 * queues and mapping (test/unit/cdk-webhooks.test.ts).
 */
const publisherFunction = (template: Template): [string, Json] => {
  const found = resourcesOf(template, 'AWS::Lambda::Function').filter(
    ([, fn]) => fn.Properties.FunctionName === 'bp-dev-PublishEvents',
  );
  expect(found, 'the publisher').toHaveLength(1);
  return found[0] as [string, Json];
};
const publisherDeadLetters = (template: Template) => one(template, 'AWS::SQS::Queue', 'PublisherDeadLetters');
const streamMapping = (template: Template): [string, Json] => {
  const [functionId] = publisherFunction(template);
  const found = resourcesOf(template, 'AWS::Lambda::EventSourceMapping').filter(
    ([, mapping]) => mapping.Properties.FunctionName?.Ref === functionId,
  );
  expect(found, "the publisher's mapping").toHaveLength(1);
  return found[0] as [string, Json];
};

describe('change events on AWS: stream, mapping, bus, archive, dead letters, role, alarms', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'bps-cdk-events-'));
  let app: ReturnType<typeof synthesize>;
  let stateful: Template;
  let events: Template;
  let stages: Template;

  beforeAll(() => {
    app = synthesize({}, undefined, outdir);
    stateful = app.template('-Stateful');
    events = app.template('-Events');
    stages = app.template('-Stages');
  }, SYNTH_TIMEOUT);
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  /** The SSM parameter (by name) a template reads through `Ref` to one of its parameters. */
  const parameterRead = (template: Template, value: Json): string => {
    const parameter = template.toJSON().Parameters?.[value?.Ref];
    expect(String(parameter?.Type), JSON.stringify(value)).toMatch(/^AWS::SSM::Parameter::Value/);
    return parameter.Default;
  };
  /** The value a stack writes to an SSM parameter, by its name. */
  const parameterWritten = (template: Template, name: string): Json =>
    resourcesOf(template, 'AWS::SSM::Parameter').find(
      ([, parameter]) => parameter.Properties.Name === name,
    )?.[1].Properties.Value;

  it("streams the table's new images, and publishes the stream's ARN for the events stack", () => {
    const [tableId, table] = only(stateful, 'AWS::DynamoDB::GlobalTable');
    expect(table.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_IMAGE' });
    expect(parameterWritten(stateful, '/business-platform/dev/table-stream-arn')).toEqual({
      'Fn::GetAtt': [tableId, 'StreamArn'],
    });
  });

  it('reads the stream with the filtered, bisecting, partially failing mapping, dead-lettering what it gives up on', () => {
    const [, mapping] = streamMapping(events);
    const [queueId] = publisherDeadLetters(events);
    const [functionId] = publisherFunction(events);
    expect(mapping.Properties).toMatchObject({
      FunctionName: { Ref: functionId },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      MaximumBatchingWindowInSeconds: 0,
      ParallelizationFactor: 1,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      MaximumRetryAttempts: 10,
      MaximumRecordAgeInSeconds: 86_400,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
    });
    expect(parameterRead(events, mapping.Properties.EventSourceArn)).toBe(
      '/business-platform/dev/table-stream-arn',
    );
    // Exactly the contract's patterns, one filter each: new Change History and outbox entries only.
    const patterns = mapping.Properties.FilterCriteria.Filters.map((filter: Json) =>
      JSON.parse(filter.Pattern),
    );
    expect(patterns).toEqual(STREAM_FILTER_PATTERNS);
    expect(patterns).toEqual([
      { eventName: ['INSERT'], dynamodb: { Keys: { sk: { S: [{ prefix: 'HISTORY#' }] } } } },
      { eventName: ['INSERT'], dynamodb: { Keys: { sk: { S: [{ prefix: 'OUTBOX#' }] } } } },
    ]);
  });

  it('keeps dead letters encrypted for 14 days, over TLS only', () => {
    const [queueId, queue] = publisherDeadLetters(events);
    expect(queue.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 86_400,
    });
    const policies = resourcesOf(events, 'AWS::SQS::QueuePolicy').filter(([, candidate]) =>
      candidate.Properties.Queues.some((queueRef: Json) => queueRef.Ref === queueId),
    );
    expect(policies).toHaveLength(1);
    const [, policy] = policies[0] as [string, Json];
    expect(policy.Properties.Queues).toEqual([{ Ref: queueId }]);
    expect(policy.Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
  });

  it('puts events on the bus business-platform-<stage>, archived for at least 30 days', () => {
    const [busId, bus] = only(events, 'AWS::Events::EventBus');
    expect(bus.Properties.Name).toBe('business-platform-dev');
    const [, archive] = only(events, 'AWS::Events::Archive');
    expect(archive.Properties.SourceArn).toEqual({ 'Fn::GetAtt': [busId, 'Arn'] });
    expect(archive.Properties.RetentionDays).toBe(ARCHIVE_RETENTION_DAYS);
    expect(archive.Properties.RetentionDays).toBeGreaterThanOrEqual(30);
    expect(archive.Properties.EventPattern).toEqual({ source: [EVENTS_SOURCE] });
    expect(parameterWritten(events, '/business-platform/dev/event-bus-arn')).toEqual({
      'Fn::GetAtt': [busId, 'Arn'],
    });
  });

  it("runs the publisher as every function runs, with the table's name and the bus's", () => {
    const [, fn] = publisherFunction(events);
    const logsId = fn.Properties.LoggingConfig.LogGroup.Ref;
    const logs = events.toJSON().Resources[logsId];
    expect(logs.Type).toBe('AWS::Logs::LogGroup');
    expect(fn.Properties).toMatchObject({
      FunctionName: 'bp-dev-PublishEvents',
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      TracingConfig: { Mode: 'Active' },
      LoggingConfig: { LogFormat: 'JSON', LogGroup: { Ref: logsId } },
    });
    expect(logs.Properties.RetentionInDays).toBe(30);
    const variables = fn.Properties.Environment.Variables;
    expect(Object.keys(variables).sort()).toEqual([
      'EVENT_BUS_NAME',
      'POWERTOOLS_SERVICE_NAME',
      'TABLE_NAME',
    ]);
    expect(variables.EVENT_BUS_NAME).toBe('business-platform-dev');
    expect(parameterRead(events, variables.TABLE_NAME)).toBe('/business-platform/dev/table-name');
  });

  it('lets the publisher put events on its bus only, and do on the table only what its transaction needs', () => {
    const [functionId, fn] = publisherFunction(events);
    const roleId = fn.Properties.Role['Fn::GetAtt'][0];
    const statements: Json[] = resourcesOf(events, 'AWS::IAM::Policy')
      .filter(([, policy]) => policy.Properties.Roles.some((role: Json) => role.Ref === roleId))
      .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement);
    expect(events.toJSON().Resources[roleId].Type).toBe('AWS::IAM::Role');
    expect(events.toJSON().Resources[roleId].Properties.ManagedPolicyArns).toBeUndefined();
    const actions = statements.flatMap((statement) => list<string>(statement.Action));
    expect(
      actions.filter((action) => action.includes('*')),
      'no wildcard action',
    ).toEqual([]);
    expect(new Set(actions.map((action) => action.split(':')[0]))).toEqual(
      new Set(['logs', 'xray', 'dynamodb', 'events', 'sqs']),
    );

    const [busId] = only(events, 'AWS::Events::EventBus');
    const putting = statements.filter((statement) =>
      list<string>(statement.Action).some((action) => action.startsWith('events:')),
    );
    expect(putting).toEqual([
      { Action: 'events:PutEvents', Effect: 'Allow', Resource: { 'Fn::GetAtt': [busId, 'Arn'] } },
    ]);

    const tableStatement = statements.find((statement) =>
      list(statement.Action).includes('dynamodb:GetItem'),
    );
    expect(list(tableStatement.Action).sort()).toEqual(
      ['dynamodb:ConditionCheckItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'].sort(),
    );
    expect(parameterRead(events, tableStatement.Resource)).toBe('/business-platform/dev/table-arn');
    const streamStatement = statements.find((statement) =>
      list(statement.Action).includes('dynamodb:GetRecords'),
    );
    expect(list(streamStatement.Action).sort()).toEqual(
      ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'].sort(),
    );
    expect(parameterRead(events, streamStatement.Resource)).toBe('/business-platform/dev/table-stream-arn');

    // Resource "*" only where the action has no resource type: X-Ray's, and listing streams.
    const everywhere = statements.filter((statement) => list(statement.Resource).includes('*'));
    expect(everywhere.flatMap((statement) => list<string>(statement.Action)).sort()).toEqual(
      ['dynamodb:ListStreams', 'xray:PutTelemetryRecords', 'xray:PutTraceSegments'].sort(),
    );
    const [queueId] = publisherDeadLetters(events);
    const sending = statements.find((statement) => list(statement.Action).includes('sqs:SendMessage'));
    expect(sending.Resource).toEqual({ 'Fn::GetAtt': [queueId, 'Arn'] });
    expect(functionId).toMatch(/^Publisher/);
  });

  it('lets no other function of the app put events anywhere', () => {
    const publisherRole = publisherFunction(events)[1].Properties.Role['Fn::GetAtt'][0];
    for (const [stack, template] of app.templates) {
      const putting = resourcesOf(template, 'AWS::IAM::Policy')
        .filter(
          ([, policy]) =>
            !(
              stack.endsWith('-Events') &&
              policy.Properties.Roles.some((role: Json) => role.Ref === publisherRole)
            ),
        )
        .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement)
        .filter((statement: Json) =>
          list<string>(statement.Action).some((action) => action.startsWith('events:')),
        );
      expect(putting, stack).toEqual([]);
    }
  });

  it("alarms on the stream's iterator age, the dead letters and the publisher's errors, of the functions and queue the events stack publishes", () => {
    const [functionId] = publisherFunction(events);
    const [queueId] = publisherDeadLetters(events);
    const alarm = (prefix: string) => {
      const found = resourcesOf(stages, 'AWS::CloudWatch::Alarm').find(([id]) => id.startsWith(prefix))?.[1];
      expect(found, prefix).toBeDefined();
      expect(found.Properties.AlarmActions, prefix).toHaveLength(1);
      return found.Properties;
    };
    const dimension = (properties: Json) => {
      const [only] = properties.Dimensions;
      return { name: only.Name, written: parameterWritten(events, parameterRead(stages, only.Value)) };
    };

    const age = alarm('AlarmsEventsIteratorAge');
    expect(age).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Statistic: 'Maximum',
      Threshold: 60_000,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(age.Period * age.EvaluationPeriods).toBe(300);
    expect(dimension(age)).toEqual({ name: 'FunctionName', written: { Ref: functionId } });

    const deadLetters = alarm('AlarmsEventsDeadLetters');
    expect(deadLetters).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 1,
    });
    expect(dimension(deadLetters)).toEqual({
      name: 'QueueName',
      written: { 'Fn::GetAtt': [queueId, 'QueueName'] },
    });

    const errors = alarm('AlarmsEventsPublisherErrors');
    expect(errors).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: 'Errors', Threshold: 3 });
    expect(dimension(errors)).toEqual({ name: 'FunctionName', written: { Ref: functionId } });
  });

  it('shows the publisher, its iterator age and its dead letters on the dashboard, and their alarms', () => {
    const body = dashboardBody(stages.toJSON());
    const metricsOf = (title: string): Json[][] => {
      const widget = body.widgets.find((candidate) => candidate.properties.title === title);
      expect(widget, title).toBeDefined();
      return widget?.properties.metrics ?? [];
    };
    const names = (title: string) => metricsOf(title).map((entry) => `${entry[0]} ${entry[1]}`);
    expect(names('Change events: publisher invocations and errors')).toEqual([
      'AWS/Lambda Invocations',
      'AWS/Lambda Errors',
    ]);
    expect(names('Change events: stream iterator age (max, ms)')).toEqual(['AWS/Lambda IteratorAge']);
    expect(names('Change events: dead-letter queue (messages)')).toEqual([
      'AWS/SQS ApproximateNumberOfMessagesVisible',
    ]);
    const alarmWidget = body.widgets.find((widget) => widget.type === 'alarm');
    const shown = JSON.stringify(alarmWidget?.properties.alarms);
    for (const id of ['AlarmsEventsIteratorAge', 'AlarmsEventsDeadLetters', 'AlarmsEventsPublisherErrors']) {
      expect(shown).toContain(id);
    }
  });

  it('deploys the events stack after the table it reads, and before the stages that alarm on it', () => {
    const { built } = app;
    expect(built.events.dependencies).toContain(built.stateful);
    expect(built.stages.dependencies).toContain(built.events);
    const count = Object.keys(events.toJSON().Resources).length;
    expect(count).toBeLessThan(50);
  });
});
