import { Duration, Validations } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { EVENT_SOURCE } from '#lib/events/change-event.ts';
import { functionName } from './function-name.ts';
import { addLogSignal, WEBHOOK_DELIVERY_SIGNAL } from './log-signals.ts';
import { NodeFunction } from './node-function.ts';

/** Both delivery functions' timeout: a run stops starting posts 12 s before it (lib/webhooks/run.ts). */
export const WEBHOOK_FUNCTION_TIMEOUT_SECONDS = 60;

/**
 * How the events queue is read: 10 events a batch as soon as there are any; a message is seen
 * again after 6 function timeouts (AWS's advice for an SQS event source: at least six times the
 * function's timeout plus the batching window, here none) and dead-lettered after 5 receipts (only
 * when the table itself failed: a failed delivery is retried from the feed). At most 5
 * DeliverWebhooks run at a time (the mapping's maximum concurrency, AWS's way of capping an SQS
 * source: what waits stays in the queue, neither throttled nor counted as a receipt): each runs 8
 * subscriptions side by side and a subscription runs once at a time, so more would mostly find
 * leases taken while taking concurrency the APIs need.
 */
export const WEBHOOK_QUEUE = {
  batchSize: 10,
  maxBatchingWindowSeconds: 0,
  maxConcurrency: 5,
  maxReceiveCount: 5,
  visibilityTimeoutSeconds: 6 * WEBHOOK_FUNCTION_TIMEOUT_SECONDS,
  retentionDays: 4,
} as const;

/** How long the dead-letter queue keeps a message (SQS's longest). */
export const WEBHOOK_DEAD_LETTER_RETENTION_DAYS = 14;

/** What the functions do on the table (lib/webhooks/*.ts), on the table itself. */
export const WEBHOOK_TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:Query',
] as const;

/** How often the sweep runs due retries, replays and continuations. */
export const WEBHOOK_SWEEP_MINUTES = 1;

export interface WebhookDeliveryProps {
  stage: string;
  bus: events.IEventBus;
  tableName: string;
  tableArn: string;
}

/**
 * Webhook deliveries on AWS (docs/webhooks.md, 'On AWS'): a rule on the bus puts every change
 * event on a queue; DeliverWebhooks reads the queue and runs the subscriptions that want the
 * events; SweepWebhooks, every minute, runs those whose retry is due. What a delivery posts comes
 * from the feed in the table, so both need the table only: no queue is written by a function.
 */
export class WebhookDelivery extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly deliverer: NodeFunction;
  readonly sweeper: NodeFunction;

  constructor(scope: Construct, id: string, props: WebhookDeliveryProps) {
    super(scope, id);
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetters', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(WEBHOOK_DEAD_LETTER_RETENTION_DAYS),
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "This queue is the webhook events queue's dead-letter queue; an operator reads and redrives it (docs/webhooks-operations.md), nothing consumes it.",
    });
    this.queue = new sqs.Queue(this, 'Events', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(WEBHOOK_QUEUE.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(WEBHOOK_QUEUE.retentionDays),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: WEBHOOK_QUEUE.maxReceiveCount },
    });
    // The whole event, as EventBridge sends it to a target: `detail` is the change event.
    const toQueue = new events.Rule(this, 'ToQueue', {
      eventBus: props.bus,
      description: 'Every change event to the webhook deliveries',
      eventPattern: { source: [EVENT_SOURCE] },
    });
    // The queue by its ARN rather than targets.SqsQueue, which also lets EventBridge call
    // GetQueueAttributes and GetQueueUrl: EventBridge sends, and only for this rule.
    toQueue.addTarget({ bind: () => ({ arn: this.queue.queueArn }) });
    this.queue.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('events.amazonaws.com')],
        actions: ['sqs:SendMessage'],
        resources: [this.queue.queueArn],
        conditions: { ArnEquals: { 'aws:SourceArn': toQueue.ruleArn } },
      }),
    );

    const environment = { TABLE_NAME: props.tableName };
    this.deliverer = new NodeFunction(this, 'Deliverer', {
      functionName: functionName(props.stage, 'DeliverWebhooks'),
      entry: 'functions/webhooks/deliver-webhooks.ts',
      description: 'Webhooks: new change events to the endpoints that want them',
      timeoutSeconds: WEBHOOK_FUNCTION_TIMEOUT_SECONDS,
      environment,
    });
    new lambda.EventSourceMapping(this, 'QueueMapping', {
      target: this.deliverer.function,
      eventSourceArn: this.queue.queueArn,
      batchSize: WEBHOOK_QUEUE.batchSize,
      maxBatchingWindow: Duration.seconds(WEBHOOK_QUEUE.maxBatchingWindowSeconds),
      maxConcurrency: WEBHOOK_QUEUE.maxConcurrency,
      // A message the run could not be made for is reported alone; the others are done.
      reportBatchItemFailures: true,
    });
    // What Lambda's poller does with the function's role (SqsEventSource would also grant
    // ChangeMessageVisibility and GetQueueUrl, which it does not call).
    this.deliverer.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
        resources: [this.queue.queueArn],
      }),
    );
    this.sweeper = new NodeFunction(this, 'Sweeper', {
      functionName: functionName(props.stage, 'SweepWebhooks'),
      entry: 'functions/webhooks/sweep-webhooks.ts',
      description: 'Webhooks: retries, replays and continuations that are due',
      timeoutSeconds: WEBHOOK_FUNCTION_TIMEOUT_SECONDS,
      environment,
    });
    new events.Rule(this, 'SweepSchedule', {
      description: 'Runs the webhook sweep',
      schedule: events.Schedule.rate(Duration.minutes(WEBHOOK_SWEEP_MINUTES)),
      targets: [new targets.LambdaFunction(this.sweeper.function, { retryAttempts: 0 })],
    });

    // Both make the same runs (lib/webhooks/dispatch.ts, run.ts): subscriptions (get, wake,
    // lease, position, streak: update), the delivery log (put), replays (query, update, delete),
    // the feed (query); on gsi1, every subscription and the agent key's state (query). No scan,
    // no batch, no transaction; no other table, index, queue or bus.
    for (const fn of [this.deliverer, this.sweeper]) {
      fn.role.addToPolicy(
        new iam.PolicyStatement({ actions: [...WEBHOOK_TABLE_ACTIONS], resources: [props.tableArn] }),
      );
      fn.role.addToPolicy(
        new iam.PolicyStatement({ actions: ['dynamodb:Query'], resources: [`${props.tableArn}/index/gsi1`] }),
      );
      // Deliveries by outcome (`webhook_delivery`), for the alarms and the dashboard.
      addLogSignal(fn, 'Deliveries', fn.logGroup, WEBHOOK_DELIVERY_SIGNAL, props.stage);
    }
  }
}
