import { Duration, Validations } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { EVENT_SOURCE } from '#lib/events/change-event.ts';
import { functionName } from './function-name.ts';
import { NodeFunction } from './node-function.ts';

/** Both delivery functions' timeout: a run stops starting posts 12 s before it (lib/webhooks/run.ts). */
export const WEBHOOK_FUNCTION_TIMEOUT_SECONDS = 60;

/**
 * How the events queue is read: 10 events a batch as soon as there are any; a message is seen
 * again after 6 function timeouts (AWS's advice for an SQS event source) and dead-lettered after 5
 * receipts (only when the table itself failed: a failed delivery is retried from the feed).
 */
export const WEBHOOK_QUEUE = {
  batchSize: 10,
  maxReceiveCount: 5,
  visibilityTimeoutSeconds: 6 * WEBHOOK_FUNCTION_TIMEOUT_SECONDS,
  retentionDays: 4,
} as const;

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
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "This queue is the webhook events queue's dead-letter queue; an operator reads it (docs/deploy.md).",
    });
    this.queue = new sqs.Queue(this, 'Events', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(WEBHOOK_QUEUE.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(WEBHOOK_QUEUE.retentionDays),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: WEBHOOK_QUEUE.maxReceiveCount },
    });
    // The whole event, as EventBridge sends it to a target: `detail` is the change event.
    new events.Rule(this, 'ToQueue', {
      eventBus: props.bus,
      description: 'Every change event to the webhook deliveries',
      eventPattern: { source: [EVENT_SOURCE] },
      targets: [new targets.SqsQueue(this.queue)],
    });

    const environment = { TABLE_NAME: props.tableName };
    this.deliverer = new NodeFunction(this, 'Deliverer', {
      functionName: functionName(props.stage, 'DeliverWebhooks'),
      entry: 'functions/webhooks/deliver-webhooks.ts',
      description: 'Webhooks: new change events to the endpoints that want them',
      timeoutSeconds: WEBHOOK_FUNCTION_TIMEOUT_SECONDS,
      environment,
    });
    this.deliverer.function.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: WEBHOOK_QUEUE.batchSize,
        maxBatchingWindow: Duration.seconds(0),
        reportBatchItemFailures: true,
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

    // Subscriptions (read, lease, position, streak), the delivery log (put), replays (query,
    // update, delete), the feed (query, get) and the agent key's state (query on gsi1).
    for (const { role } of [this.deliverer, this.sweeper]) {
      role.addToPolicy(
        new iam.PolicyStatement({
          actions: [
            'dynamodb:GetItem',
            'dynamodb:PutItem',
            'dynamodb:UpdateItem',
            'dynamodb:DeleteItem',
            'dynamodb:Query',
          ],
          resources: [props.tableArn, `${props.tableArn}/index/gsi1`],
        }),
      );
    }
  }
}
