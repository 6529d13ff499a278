import { CfnOutput, Duration, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { EVENT_SOURCE } from '#lib/events/change-event.ts';
import { STREAM_FILTER_PATTERNS } from '#lib/events/stream-filter.ts';
import { functionName } from './function-name.ts';
import { NodeFunction } from './node-function.ts';
import { publishParameter, readParameter } from './parameters.ts';
import type { ServiceContext } from './service-context.ts';
import { WebhookDelivery } from './webhook-delivery.ts';

/** The bus every change event is put on: one per stage, named so customers' rules can name it. */
export const eventBusName = (stage: string): string => `business-platform-${stage}`;

/** The `source` of every event the publisher puts on the bus (lib/events/bus.ts puts it). */
export const EVENTS_SOURCE = EVENT_SOURCE;

/**
 * How long the bus's archive keeps events, so that a consumer that lost some can have them
 * replayed: a little more than the 30 days the feed keeps, so a replay can always reach back as
 * far as the feed does.
 */
export const ARCHIVE_RETENTION_DAYS = 35;

/** How long a dead-lettered batch's record stays in the queue (SQS's longest). */
export const DEAD_LETTER_RETENTION_DAYS = 14;

/**
 * How the table's stream is read: only new Change History and outbox entries (the filters), 100
 * records a batch as soon as there are any, one batch of a shard at a time (so a record's events
 * are published in commit order). A failing record is reported alone (partial batch failures) and
 * a failing batch is halved until the bad record is found; a record still failing after 10 retries
 * or a day is dead-lettered (its stream coordinates, not its content) instead of holding up its
 * shard for the 24 hours the stream keeps it.
 */
export const STREAM_READING = {
  startingPosition: lambda.StartingPosition.TRIM_HORIZON,
  batchSize: 100,
  maxBatchingWindow: Duration.seconds(0),
  parallelizationFactor: 1,
  bisectBatchOnError: true,
  reportBatchItemFailures: true,
  retryAttempts: 10,
  // Lambda takes 60 s to 7 days; the stream itself keeps records 24 hours.
  maxRecordAge: Duration.days(1),
} as const;

export interface EventsStackProps extends StackProps {
  context: ServiceContext;
}

/**
 * Change events on AWS (docs/deploy-watching.md, 'Change events on the bus'): the EventBridge bus
 * `business-platform-<stage>` with its archive, and the publisher: a function on the table's
 * stream that writes each new Change History or outbox entry's event to the feed and puts it on
 * the bus, with its dead-letter queue; and the webhook deliveries (infra/webhook-delivery.ts,
 * docs/webhooks-operations.md), which the bus's events start.
 *
 * A stack of its own rather than part of the stateful stack: the publisher is code, deployed with
 * every release, and the stateful stack holds what must outlive deployments (retained, deletion
 * protected); what this stack holds can be removed and created again without losing anything the
 * table does not keep (the feed is in the table; the archive only replays it to the bus). It finds
 * the table, like every other stack, through SSM parameters, and publishes the bus and what the
 * alarms watch the same way.
 */
export class EventsStack extends Stack {
  readonly bus: events.EventBus;
  readonly publisher: NodeFunction;
  readonly deadLetterQueue: sqs.Queue;
  readonly webhooks: WebhookDelivery;

  constructor(scope: Construct, id: string, props: EventsStackProps) {
    super(scope, id, props);
    const { stage } = props.context;
    const tableName = readParameter(this, stage, 'table-name');
    const tableArn = readParameter(this, stage, 'table-arn');
    const tableStreamArn = readParameter(this, stage, 'table-stream-arn');

    this.bus = new events.EventBus(this, 'Bus', {
      eventBusName: eventBusName(stage),
      description: 'Business Platform change events: one per committed change to a business',
    });
    this.bus.archive('Archive', {
      archiveName: eventBusName(stage),
      description: `Every change event, replayable for ${ARCHIVE_RETENTION_DAYS} days`,
      eventPattern: { source: [EVENTS_SOURCE] },
      retention: Duration.days(ARCHIVE_RETENTION_DAYS),
    });

    this.deadLetterQueue = new sqs.Queue(this, 'PublisherDeadLetters', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(DEAD_LETTER_RETENTION_DAYS),
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "This queue is the dead-letter destination of the publisher's stream mapping; an operator reads it (docs/deploy-watching.md), nothing consumes it.",
    });

    this.publisher = new NodeFunction(this, 'Publisher', {
      functionName: functionName(stage, 'PublishEvents'),
      entry: 'functions/events/publish-events.ts',
      description: 'Change events: the table stream to the feed and the bus',
      // A batch of 100 events is a few seconds of calls; a call that hangs fails the batch sooner,
      // and the mapping retries it.
      timeoutSeconds: 20,
      environment: { TABLE_NAME: tableName, EVENT_BUS_NAME: eventBusName(stage) },
    });
    const { role } = this.publisher;
    // The feed's items: the counter read and the one transaction that writes the feed items,
    // the dedupe marker and the order state (Put, Update, ConditionCheck). No Query, no delete.
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: [
          'dynamodb:GetItem',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
          'dynamodb:ConditionCheckItem',
        ],
        resources: [tableArn],
      }),
    );
    // Lambda's poller reads the stream with the function's role. ListStreams has no resource
    // type (IAM evaluates it against "*"; NodeFunction's IAM5 acknowledgement covers it).
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
        resources: [tableStreamArn],
      }),
    );
    role.addToPolicy(new iam.PolicyStatement({ actions: ['dynamodb:ListStreams'], resources: ['*'] }));
    // This bus only: no other bus, no default bus.
    role.addToPolicy(
      new iam.PolicyStatement({ actions: ['events:PutEvents'], resources: [this.bus.eventBusArn] }),
    );

    new lambda.EventSourceMapping(this, 'StreamMapping', {
      target: this.publisher.function,
      eventSourceArn: tableStreamArn,
      ...STREAM_READING,
      filters: STREAM_FILTER_PATTERNS.map((pattern) => ({ pattern: JSON.stringify(pattern) })),
      // Grants the role sqs:SendMessage on the queue.
      onFailure: new SqsDlq(this.deadLetterQueue),
    });

    this.webhooks = new WebhookDelivery(this, 'Webhooks', { stage, bus: this.bus, tableName, tableArn });

    publishParameter(this, stage, 'event-bus-name', this.bus.eventBusName);
    publishParameter(this, stage, 'event-bus-arn', this.bus.eventBusArn);
    // The stages stack alarms on these and shows them on the dashboard.
    publishParameter(this, stage, 'events-publisher-function-name', this.publisher.function.functionName);
    publishParameter(this, stage, 'events-dead-letter-queue-name', this.deadLetterQueue.queueName);
    const { webhooks } = this;
    publishParameter(
      this,
      stage,
      'webhook-deliverer-function-name',
      webhooks.deliverer.function.functionName,
    );
    publishParameter(this, stage, 'webhook-sweeper-function-name', webhooks.sweeper.function.functionName);
    publishParameter(this, stage, 'webhook-queue-name', webhooks.queue.queueName);
    publishParameter(this, stage, 'webhook-dead-letter-queue-name', webhooks.deadLetterQueue.queueName);
    new CfnOutput(this, 'EventBusName', {
      value: this.bus.eventBusName,
      description: 'Change events: add rules on this bus',
    });
    new CfnOutput(this, 'EventBusArn', { value: this.bus.eventBusArn });
  }
}
