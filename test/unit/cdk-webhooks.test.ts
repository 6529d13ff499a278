import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS_SOURCE } from '../../infra/events-stack.ts';
import { WEBHOOK_FUNCTION_TIMEOUT_SECONDS, WEBHOOK_QUEUE } from '../../infra/webhook-delivery.ts';
import type { Json } from '../support/cdk-app.ts';
import {
  arnOf,
  list,
  one,
  parameterRead,
  resourcesOf,
  synthesizeWebhookStacks,
  type WebhookStackIds,
} from '../support/webhook-stack-template.ts';

/** Synthesizing the whole app takes ~10 s alone, more on a busy machine. */
const SYNTH_TIMEOUT = 180_000;

describe('webhook deliveries on AWS: rule, queue, dead letters, mapping, sweep, roles', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'bps-cdk-webhooks-'));
  let app: ReturnType<typeof synthesizeWebhookStacks>['app'];
  let events: Template;
  let resources: Record<string, Json>;
  let ids: WebhookStackIds;

  beforeAll(() => {
    ({ app, events, ids } = synthesizeWebhookStacks(outdir));
    resources = events.toJSON().Resources;
  }, SYNTH_TIMEOUT);
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  const tableArnParameter = () => '/business-platform/dev/table-arn';

  it('puts every change event on the bus on the queue, as it is, and nothing else', () => {
    const rule = resources[ids.rule].Properties;
    expect(rule.EventBusName).toEqual({ Ref: ids.bus });
    expect(rule.EventPattern).toEqual({ source: [EVENTS_SOURCE] });
    expect(rule.State).toBe('ENABLED');
    // The whole event (no Input, InputPath or InputTransformer): `detail` is the change event.
    expect(rule.Targets).toEqual([{ Arn: arnOf(ids.queue), Id: 'Target0' }]);
    // No other rule of the app sends to the queue.
    const targeting = [...app.templates.values()].flatMap((template) =>
      resourcesOf(template, 'AWS::Events::Rule').filter(([, candidate]) =>
        JSON.stringify(candidate.Properties.Targets ?? []).includes(`"${ids.queue}"`),
      ),
    );
    expect(targeting.map(([id]) => id)).toEqual([ids.rule]);
  });

  it('lets EventBridge send to the queue for this rule only, and nothing but send; the queues refuse plain HTTP', () => {
    const policyOf = (queueId: string): Json[] =>
      one(
        resourcesOf(events, 'AWS::SQS::QueuePolicy').filter(([, policy]) =>
          policy.Properties.Queues.some((queue: Json) => queue.Ref === queueId),
        ),
        `policy of ${queueId}`,
      )[1].Properties.PolicyDocument.Statement;
    const denyPlainHttp = (queueId: string) => ({
      Action: 'sqs:*',
      Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Resource: arnOf(queueId),
    });
    expect(policyOf(ids.queue)).toEqual([
      denyPlainHttp(ids.queue),
      {
        Action: 'sqs:SendMessage',
        Condition: { ArnEquals: { 'aws:SourceArn': arnOf(ids.rule) } },
        Effect: 'Allow',
        Principal: { Service: 'events.amazonaws.com' },
        Resource: arnOf(ids.queue),
      },
    ]);
    // Only the queue's redrive puts messages here: no one is allowed to send.
    expect(policyOf(ids.deadLetters)).toEqual([denyPlainHttp(ids.deadLetters)]);
  });

  it('keeps the queue encrypted, visible again after 6 function timeouts, dead-lettering after 5 receipts', () => {
    const queue = resources[ids.queue].Properties;
    const timeout = resources[ids.deliverer].Properties.Timeout;
    expect(timeout).toBe(WEBHOOK_FUNCTION_TIMEOUT_SECONDS);
    expect(queue).toEqual({
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 360,
      MessageRetentionPeriod: 4 * 86_400,
      RedrivePolicy: { deadLetterTargetArn: arnOf(ids.deadLetters), maxReceiveCount: 5 },
      Tags: expect.any(Array),
    });
    // AWS: at least six times the function's timeout, plus the batching window.
    expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(
      6 * timeout + WEBHOOK_QUEUE.maxBatchingWindowSeconds,
    );
    const deadLetters = resources[ids.deadLetters].Properties;
    expect(deadLetters).toEqual({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 86_400,
      Tags: expect.any(Array),
    });
    // Kept longer than the queue keeps a message, so a message moved there is never older than the DLQ lets it be.
    expect(deadLetters.MessageRetentionPeriod).toBeGreaterThan(queue.MessageRetentionPeriod);
  });

  it('reads the queue with DeliverWebhooks: batches of 10 at once, partial batch failures, at most 5 at a time', () => {
    const mappings = resourcesOf(events, 'AWS::Lambda::EventSourceMapping').filter(
      ([, mapping]) => JSON.stringify(mapping.Properties.EventSourceArn) === JSON.stringify(arnOf(ids.queue)),
    );
    const [, mapping] = one(mappings, 'the queue mapping');
    expect(mapping.Properties).toEqual({
      FunctionName: { Ref: ids.deliverer },
      EventSourceArn: arnOf(ids.queue),
      BatchSize: 10,
      MaximumBatchingWindowInSeconds: 0,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 5 },
      Tags: expect.any(Array),
    });
    // Nothing reads the dead-letter queue; the sweeper reads no queue.
    const readers = [...app.templates.values()].flatMap((template) =>
      resourcesOf(template, 'AWS::Lambda::EventSourceMapping').filter(([, candidate]) =>
        JSON.stringify(candidate.Properties.EventSourceArn).includes('Webhooks'),
      ),
    );
    expect(readers).toHaveLength(1);
  });

  it('runs SweepWebhooks every minute from a schedule on the default bus, once (no retry), which only it may invoke it', () => {
    const schedule = resources[ids.schedule].Properties;
    expect(schedule).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [{ Arn: arnOf(ids.sweeper), Id: 'Target0', RetryPolicy: { MaximumRetryAttempts: 0 } }],
    });
    expect(schedule.EventBusName).toBeUndefined();
    const permissions = resourcesOf(events, 'AWS::Lambda::Permission').map(([, permission]) => permission);
    const on = (functionId: string) =>
      permissions.filter(
        (permission) =>
          JSON.stringify(permission.Properties.FunctionName) === JSON.stringify(arnOf(functionId)),
      );
    expect(on(ids.sweeper).map((permission) => permission.Properties)).toEqual([
      {
        Action: 'lambda:InvokeFunction',
        FunctionName: arnOf(ids.sweeper),
        Principal: 'events.amazonaws.com',
        SourceArn: arnOf(ids.schedule),
      },
    ]);
    // Lambda's poller invokes DeliverWebhooks: no resource policy lets anyone else.
    expect(on(ids.deliverer)).toEqual([]);
  });

  it('runs both as every function runs, with the table name only, outside any VPC (they post to the internet)', () => {
    for (const id of [ids.deliverer, ids.sweeper]) {
      const fn = resources[id].Properties;
      const logsId = fn.LoggingConfig.LogGroup.Ref;
      expect(resources[logsId]).toMatchObject({
        Type: 'AWS::Logs::LogGroup',
        Properties: { RetentionInDays: 30 },
      });
      expect(fn).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Timeout: 60,
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogFormat: 'JSON' },
      });
      expect(fn.VpcConfig, id).toBeUndefined();
      expect(Object.keys(fn.Environment.Variables).sort()).toEqual(['POWERTOOLS_SERVICE_NAME', 'TABLE_NAME']);
      expect(parameterRead(events, fn.Environment.Variables.TABLE_NAME)).toBe(
        '/business-platform/dev/table-name',
      );
    }
  });

  /** A role's statements, each as its sorted actions and its resources described. */
  const statementsOf = (functionId: string) => {
    const roleId = resources[functionId].Properties.Role['Fn::GetAtt'][0];
    const role = resources[roleId];
    expect(role.Properties.ManagedPolicyArns, roleId).toBeUndefined();
    expect(role.Properties.Policies, roleId).toBeUndefined();
    const describe = (resource: Json): string => {
      if (resource === '*') return '*';
      if (resource?.['Fn::GetAtt']) return `${resource['Fn::GetAtt'][0]}.Arn`;
      if (resource?.Ref) return parameterRead(events, resource);
      if (resource?.['Fn::Join']) return resource['Fn::Join'][1].map(describe).join('');
      return String(resource);
    };
    return resourcesOf(events, 'AWS::IAM::Policy')
      .filter(([, policy]) => policy.Properties.Roles.some((candidate: Json) => candidate.Ref === roleId))
      .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as Json[])
      .map((statement) => {
        expect(statement.Effect).toBe('Allow');
        expect(statement.Condition).toBeUndefined();
        return {
          actions: list<string>(statement.Action).sort(),
          resources: list(statement.Resource).map(describe).sort(),
        };
      });
  };

  it('lets each role do exactly what its code calls: the table and gsi1, and for DeliverWebhooks reading its queue', () => {
    const table = tableArnParameter();
    const logsOf = (functionId: string) =>
      `${resources[functionId].Properties.LoggingConfig.LogGroup.Ref}.Arn`;
    const common = (functionId: string) => [
      { actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logsOf(functionId)] },
      { actions: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'], resources: ['*'] },
      {
        actions: [
          'dynamodb:DeleteItem',
          'dynamodb:GetItem',
          'dynamodb:PutItem',
          'dynamodb:Query',
          'dynamodb:UpdateItem',
        ],
        resources: [table],
      },
      { actions: ['dynamodb:Query'], resources: [`${table}/index/gsi1`] },
    ];
    const sorted = (statements: Json[]) =>
      [...statements].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(sorted(statementsOf(ids.deliverer))).toEqual(
      sorted([
        ...common(ids.deliverer),
        {
          actions: ['sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage'],
          resources: [`${ids.queue}.Arn`],
        },
      ]),
    );
    expect(sorted(statementsOf(ids.sweeper))).toEqual(sorted(common(ids.sweeper)));
  });

  it('lets no other role of the app touch the webhook queues, and neither webhook role send or put events', () => {
    for (const [stack, template] of app.templates) {
      for (const [policyId, policy] of resourcesOf(template, 'AWS::IAM::Policy')) {
        const statements: Json[] = policy.Properties.PolicyDocument.Statement;
        const touching = statements.filter((statement) =>
          JSON.stringify(statement.Resource ?? '').match(new RegExp(`"(${ids.queue}|${ids.deadLetters})"`)),
        );
        const isDeliverer =
          stack.endsWith('-Events') &&
          policy.Properties.Roles.some(
            (role: Json) => role.Ref === resources[ids.deliverer].Properties.Role['Fn::GetAtt'][0],
          );
        if (!isDeliverer) expect(touching, `${stack}/${policyId}`).toEqual([]);
        // No statement anywhere grants SQS on every queue.
        for (const statement of statements) {
          if (list<string>(statement.Action).some((action) => action.startsWith('sqs:'))) {
            expect(list(statement.Resource), `${stack}/${policyId}`).not.toContain('*');
          }
        }
      }
    }
    for (const id of [ids.deliverer, ids.sweeper]) {
      const actions = statementsOf(id).flatMap((statement) => statement.actions);
      expect(actions.filter((action) => /^(events:|sqs:SendMessage|lambda:)/.test(action))).toEqual([]);
    }
  });
});
