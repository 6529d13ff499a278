import type { TemplateJson, TemplateSet } from '../../infra/local/iam/template-resolver.ts';

/**
 * A hand-written events stack as CDK writes infra/webhook-delivery.ts (the bus, a rule on it to
 * a queue with its dead-letter queue, the queue's event source mapping, a schedule rule to the
 * sweep): what the local bus's rules, queues and schedules are read from.
 */
export function webhookDeliveryTemplate(
  options: {
    pattern?: object;
    batchSize?: number;
    reportBatchItemFailures?: boolean;
    visibilityTimeout?: number;
    maxReceiveCount?: number;
    schedule?: string;
    target?: Record<string, unknown>;
  } = {},
): TemplateSet {
  const template: TemplateJson = {
    Resources: {
      BusEA82B648: { Type: 'AWS::Events::EventBus', Properties: { Name: 'business-platform-local' } },
      WebhooksDeadLettersA656B8E7: {
        Type: 'AWS::SQS::Queue',
        Properties: { MessageRetentionPeriod: 1209600 },
      },
      WebhooksEventsD5F34A63: {
        Type: 'AWS::SQS::Queue',
        Properties: {
          MessageRetentionPeriod: 345600,
          RedrivePolicy: {
            deadLetterTargetArn: { 'Fn::GetAtt': ['WebhooksDeadLettersA656B8E7', 'Arn'] },
            maxReceiveCount: options.maxReceiveCount ?? 5,
          },
          VisibilityTimeout: options.visibilityTimeout ?? 360,
        },
      },
      WebhooksToQueueAAF814A8: {
        Type: 'AWS::Events::Rule',
        Properties: {
          EventBusName: { Ref: 'BusEA82B648' },
          EventPattern: options.pattern ?? { source: ['business-platform'] },
          State: 'ENABLED',
          Targets: [
            {
              Arn: { 'Fn::GetAtt': ['WebhooksEventsD5F34A63', 'Arn'] },
              Id: 'Target0',
              ...options.target,
            },
          ],
        },
      },
      WebhooksDelivererFunction8C001618: {
        Type: 'AWS::Lambda::Function',
        Properties: { FunctionName: 'bp-local-DeliverWebhooks', Timeout: 60 },
      },
      WebhooksDelivererFunctionSqsEventSource484C312C: {
        Type: 'AWS::Lambda::EventSourceMapping',
        Properties: {
          BatchSize: options.batchSize ?? 10,
          EventSourceArn: { 'Fn::GetAtt': ['WebhooksEventsD5F34A63', 'Arn'] },
          FunctionName: { Ref: 'WebhooksDelivererFunction8C001618' },
          ...(options.reportBatchItemFailures === false
            ? {}
            : { FunctionResponseTypes: ['ReportBatchItemFailures'] }),
          MaximumBatchingWindowInSeconds: 0,
        },
      },
      WebhooksSweeperFunction1F7FFB7A: {
        Type: 'AWS::Lambda::Function',
        Properties: { FunctionName: 'bp-local-SweepWebhooks', Timeout: 60 },
      },
      WebhooksSweepScheduleE161836D: {
        Type: 'AWS::Events::Rule',
        Properties: {
          ScheduleExpression: options.schedule ?? 'rate(1 minute)',
          State: 'ENABLED',
          Targets: [
            {
              Arn: { 'Fn::GetAtt': ['WebhooksSweeperFunction1F7FFB7A', 'Arn'] },
              Id: 'Target0',
              RetryPolicy: { MaximumRetryAttempts: 0 },
            },
          ],
        },
      },
    },
  };
  return new Map([['BusinessPlatform-local-Events', template]]);
}
