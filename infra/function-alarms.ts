/**
 * The alarms of the functions no API sees: the Cognito triggers, the change-event publisher and the
 * webhook deliveries. An error of a function behind API Gateway is a 5xx of its API and counted
 * there; these are invoked by Cognito, the table's stream, a queue or a schedule, so their failed
 * invocations, their dead-letter queues and what they log are watched instead. Each function makes
 * its alarms in the scope it is given and returns them; ServiceAlarms (infra/alarms.ts) adds the
 * topic they notify.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import * as limits from './alarm-thresholds.ts';
import { functionSignalMetric, WEBHOOK_DELIVERY_SIGNAL } from './log-signals.ts';

const FIVE_MINUTES = Duration.minutes(5);

/** The Cognito triggers of the user pool, by the name their alarms and the dashboard use. */
export type TriggerName = 'PreSignUp' | 'PostConfirmation' | 'PreTokenGeneration';

const TRIGGER_EFFECT: Record<TriggerName, string> = {
  PreSignUp: 'invited people cannot sign up',
  PostConfirmation: 'new users do not become members of the businesses that invited them',
  PreTokenGeneration: 'nobody can sign in to the console',
};

/** `threshold` or more failed invocations of a function no API sees, in 15 minutes. */
function functionErrors(
  scope: Construct,
  id: string,
  functionName: string,
  threshold: number,
  alarmDescription: string,
) {
  return new cloudwatch.Metric({
    namespace: 'AWS/Lambda',
    metricName: 'Errors',
    dimensionsMap: { FunctionName: functionName },
    period: Duration.minutes(15),
    statistic: 'Sum',
  }).createAlarm(scope, id, {
    alarmDescription,
    threshold,
    evaluationPeriods: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
}

/** Any message in a dead-letter queue: something was given up on and waits for an operator. */
function deadLetters(scope: Construct, id: string, queueName: string, alarmDescription: string) {
  return new cloudwatch.Metric({
    namespace: 'AWS/SQS',
    metricName: 'ApproximateNumberOfMessagesVisible',
    dimensionsMap: { QueueName: queueName },
    period: FIVE_MINUTES,
    statistic: 'Maximum',
  }).createAlarm(scope, id, {
    alarmDescription,
    threshold: 0,
    evaluationPeriods: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
}

/** A Cognito trigger that fails: Cognito refuses the sign-up or sign-in, and no API sees it. */
export function triggerAlarm(scope: Construct, trigger: TriggerName, functionName: string): cloudwatch.Alarm {
  return functionErrors(
    scope,
    `${trigger}TriggerErrors`,
    functionName,
    limits.TRIGGER_ERRORS_THRESHOLD,
    `Cognito ${trigger} trigger: ${limits.TRIGGER_ERRORS_THRESHOLD} or more failed invocations in 15 minutes; while it fails ${TRIGGER_EFFECT[trigger]}. ` +
      "First look: the trigger's log group (level ERROR), then the table's alarms.",
  );
}

/**
 * The change-event publisher, which no API sees: the age of the oldest stream record it has not
 * published (events late on the bus and in the feed), its failed invocations, and any record it
 * gave up on (in the dead-letter queue: an event that will not be published without an operator).
 */
export function eventPublisherAlarms(
  scope: Construct,
  functionName: string,
  deadLetterQueueName: string,
): cloudwatch.Alarm[] {
  const minute = Duration.minutes(1);
  const iteratorAge = new cloudwatch.Metric({
    namespace: 'AWS/Lambda',
    metricName: 'IteratorAge',
    dimensionsMap: { FunctionName: functionName },
    period: minute,
    statistic: 'Maximum',
  }).createAlarm(scope, 'EventsIteratorAge', {
    alarmDescription:
      `Change events: the oldest table stream record the publisher has not published is over ${limits.EVENTS_ITERATOR_AGE_MS / 1000} s old, 5 minutes running; events reach the feed and the bus that late. ` +
      "First look: the publisher's log group (level ERROR) and its errors on the dashboard; the stream keeps records 24 hours, a record is dead-lettered after 10 retries or a day.",
    threshold: limits.EVENTS_ITERATOR_AGE_MS,
    evaluationPeriods: 5,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
  return [
    iteratorAge,
    deadLetters(
      scope,
      'EventsDeadLetters',
      deadLetterQueueName,
      'Change events: the publisher gave up on a stream record (10 retries or a day) and its event is in neither the feed nor the bus. ' +
        "First look: the message in the dead-letter queue (the batch's shard and sequence numbers) and the publisher's log for those records.",
    ),
    functionErrors(
      scope,
      'EventsPublisherErrors',
      functionName,
      limits.EVENTS_PUBLISHER_ERRORS_THRESHOLD,
      `Change events: ${limits.EVENTS_PUBLISHER_ERRORS_THRESHOLD} or more failed invocations of the publisher in 15 minutes (it threw, timed out or was refused a call); its batches are retried, and events wait meanwhile. ` +
        "First look: the publisher's log group (level ERROR), then the table's alarms.",
    ),
  ];
}

/** The names of the webhook deliveries' two functions and dead-letter queue (infra/webhook-delivery.ts). */
export interface WebhookNames {
  delivererFunctionName: string;
  sweeperFunctionName: string;
  deadLetterQueueName: string;
}

/**
 * Webhook deliveries (infra/webhook-delivery.ts, docs/webhooks-operations.md), which no API
 * sees: deliveries failing across subscriptions, a subscription disabled, an events-queue message
 * given up on, and either delivery function failing.
 */
export function webhookAlarms(scope: Construct, stage: string, webhooks: WebhookNames): cloudwatch.Alarm[] {
  const quarter = Duration.minutes(15);
  const outcome = (value: string) =>
    functionSignalMetric(stage, WEBHOOK_DELIVERY_SIGNAL.metricName, { Outcome: value }, quarter);
  const failing = outcome('failed').createAlarm(scope, 'WebhookDeliveriesFailing', {
    alarmDescription:
      `Webhooks: ${limits.WEBHOOK_FAILURES_THRESHOLD} or more deliveries failed in 15 minutes, across subscriptions (one endpoint down fails about 3 times in that time, and is its owner's to fix). ` +
      'First look: the DeliverWebhooks and SweepWebhooks log groups, lines webhook_delivery=failed: one webhook_id or many? which status_code (none: DNS, connection, timeout)? Failed deliveries are retried from the feed; nothing is lost.',
    threshold: limits.WEBHOOK_FAILURES_THRESHOLD,
    evaluationPeriods: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
  const disabled = outcome('disabled').createAlarm(scope, 'WebhookSubscriptionsDisabled', {
    alarmDescription:
      'Webhooks: a subscription was disabled: its endpoint failed for 3 days or answered 410 Gone (reason failing, gone), or its agent key was revoked (key_revoked). Its agent gets nothing more until it is re-enabled. ' +
      "First look: the line webhook_delivery=disabled in the DeliverWebhooks or SweepWebhooks log group (webhook_id, reason); for failing or gone, tell the agent's owner.",
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
  const errors = (id: string, label: string, functionName: string, effect: string) =>
    functionErrors(
      scope,
      id,
      functionName,
      limits.WEBHOOK_FUNCTION_ERRORS_THRESHOLD,
      `Webhooks: ${limits.WEBHOOK_FUNCTION_ERRORS_THRESHOLD} or more failed invocations of ${label} in 15 minutes (it threw, timed out or was refused a call); ${effect}. ` +
        `First look: ${label}'s log group (level ERROR), then the table's alarms.`,
    );
  return [
    failing,
    disabled,
    deadLetters(
      scope,
      'WebhookDeadLetters',
      webhooks.deadLetterQueueName,
      'Webhooks: an events-queue message was received 5 times and no delivery run could be made for it (the table failed), so it went to the webhook dead-letter queue. Subscriptions it would have woken catch up at their next event or retry. ' +
        "First look: DeliverWebhooks' log group (level ERROR, 'webhook delivery run failed') and the table's alarms; once fixed, move the messages back (aws sqs start-message-move-task, docs/webhooks-operations.md).",
    ),
    errors(
      'WebhookDelivererErrors',
      'DeliverWebhooks',
      webhooks.delivererFunctionName,
      'new events wait in the queue and are retried, then dead-lettered',
    ),
    errors(
      'WebhookSweeperErrors',
      'SweepWebhooks',
      webhooks.sweeperFunctionName,
      'retries, replays and long catch-ups wait for a sweep that works',
    ),
  ];
}
