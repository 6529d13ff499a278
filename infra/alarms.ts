import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import * as limits from './alarm-thresholds.ts';
import {
  eventPublisherAlarms,
  type TriggerName,
  triggerAlarm,
  type WebhookNames,
  webhookAlarms,
} from './function-alarms.ts';
import { functionSignalMetric, type SurfaceName, surfaceStatusMetric } from './log-signals.ts';
import { MAIL_METRIC_DIMENSION, mailConfigurationSetName } from './mail.ts';

const FIVE_MINUTES = Duration.minutes(5);

/** The DynamoDB operations the functions call: SystemErrors is published per operation. */
export const TABLE_OPERATIONS = [
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactWriteItems',
] as const;

/**
 * The alarms of the stages stack: each says in its description what it means and what to look at
 * first, and all notify one SNS topic (created in the API stack, found through its SSM
 * parameter). Thresholds and periods are set so that one stray error does not page. An error of a
 * function behind API Gateway is a 5xx of its API and counted there; only functions invoked
 * otherwise (the Cognito triggers, the change-event publisher, the webhook deliveries) have alarms
 * of their own, made in infra/function-alarms.ts.
 */
export class ServiceAlarms extends Construct {
  private readonly action: actions.SnsAction;
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: { topicArn: string }) {
    super(scope, id);
    this.action = new actions.SnsAction(sns.Topic.fromTopicArn(this, 'Topic', props.topicArn));
  }

  private add(alarm: cloudwatch.Alarm): cloudwatch.Alarm {
    alarm.addAlarmAction(this.action);
    this.alarms.push(alarm);
    return alarm;
  }

  /** The share of 5xx answers of an HTTP API's $default stage, and its p99 latency. */
  watchHttpApi(label: string, apiId: string): cloudwatch.Alarm[] {
    const metric = (metricName: string, statistic = 'Sum') =>
      new cloudwatch.Metric({
        namespace: 'AWS/ApiGateway',
        metricName,
        dimensionsMap: { ApiId: apiId, Stage: '$default' },
        period: FIVE_MINUTES,
        statistic,
      });
    const errorRate = new cloudwatch.MathExpression({
      expression: `IF(requests >= ${limits.API_MIN_REQUESTS}, 100 * errors / requests, 0)`,
      usingMetrics: { errors: metric('5xx'), requests: metric('Count') },
      period: FIVE_MINUTES,
      label: '5xx %',
    }).createAlarm(this, `${label}5xxRate`, {
      alarmDescription:
        `${label} API: more than ${limits.API_5XX_PERCENT_THRESHOLD}% of answers are 5xx (10 minutes, at least ${limits.API_MIN_REQUESTS} requests each 5). ` +
        'First look: the dashboard\'s "503 by cause" (throttled table, timeouts, identity provider) and the busiest functions\' errors; then the function logs at level ERROR.',
      threshold: limits.API_5XX_PERCENT_THRESHOLD,
      evaluationPeriods: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const latency = metric('Latency', 'p99').createAlarm(this, `${label}P99Latency`, {
      alarmDescription:
        `${label} API: the slowest 1% of answers took over ${limits.API_P99_LATENCY_MS / 1000} s for 15 minutes. ` +
        'First look: the dashboard\'s slowest functions and the table\'s throttles; a dependency near its timeout (JWKS, SES, an external photo host) shows as 503s with cause "timeout".',
      threshold: limits.API_P99_LATENCY_MS,
      evaluationPeriods: 3,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    return [this.add(errorRate), this.add(latency)];
  }

  /** A burst of 401s on one API (counted per surface from its access log). */
  watchUnauthorized(label: string, stage: string, surfaces: readonly SurfaceName[]): cloudwatch.Alarm {
    const usingMetrics = Object.fromEntries(
      surfaces.map((surface) => [surface.toLowerCase(), surfaceStatusMetric(stage, surface, '401')]),
    );
    const alarm = new cloudwatch.MathExpression({
      expression: Object.keys(usingMetrics).join(' + '),
      usingMetrics,
      period: FIVE_MINUTES,
      label: '401s',
    }).createAlarm(this, `${label}UnauthorizedBurst`, {
      alarmDescription:
        `${label} API: ${limits.UNAUTHORIZED_BURST} or more 401s in 5 minutes, twice running. A client with a broken token refresh, a changed issuer or signing key, or someone trying tokens. ` +
        "First look: the API access log (routeKey, ip of the 401s) and the dashboard's 401s per surface.",
      threshold: limits.UNAUTHORIZED_BURST,
      evaluationPeriods: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    return this.add(alarm);
  }

  /** Refresh tokens or codes presented after use: each ended a grant; several in an hour are a pattern. */
  watchReuseRevocations(stage: string): cloudwatch.Alarm {
    const hour = Duration.hours(1);
    const alarm = new cloudwatch.MathExpression({
      expression: 'refresh + code',
      usingMetrics: {
        refresh: functionSignalMetric(stage, 'OAuthEvents', { Event: 'refresh_token_reused' }, hour),
        code: functionSignalMetric(stage, 'OAuthEvents', { Event: 'code_reused' }, hour),
      },
      period: hour,
      label: 'Reuse revocations',
    }).createAlarm(this, 'OAuthReuseRevocations', {
      alarmDescription:
        `OAuth: ${limits.REUSE_REVOCATIONS_PER_HOUR} or more grants ended in an hour because a refresh token or code was used twice: tokens are leaking (a client's storage, logs) or a client retries badly. ` +
        'First look: the oauth function logs, security_event lines (client_id, user_id); one client? then `npm run oauth-client` to revoke or block it.',
      threshold: limits.REUSE_REVOCATIONS_PER_HOUR,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    return this.add(alarm);
  }

  /** The table's throttled reads and writes, and DynamoDB's own failures on it. */
  watchTable(tableName: string): cloudwatch.Alarm[] {
    const metric = (metricName: string, dimensions: Record<string, string> = {}) =>
      new cloudwatch.Metric({
        namespace: 'AWS/DynamoDB',
        metricName,
        dimensionsMap: { TableName: tableName, ...dimensions },
        period: FIVE_MINUTES,
        statistic: 'Sum',
      });
    const throttles = new cloudwatch.MathExpression({
      expression: 'reads + writes',
      usingMetrics: { reads: metric('ReadThrottleEvents'), writes: metric('WriteThrottleEvents') },
      period: FIVE_MINUTES,
      label: 'Throttle events',
    }).createAlarm(this, 'TableThrottles', {
      alarmDescription:
        `Table: ${limits.TABLE_PROBLEMS_THRESHOLD} or more throttled reads and writes in 5 minutes, twice running; past the SDK's retries they are 503s with cause "throttled". ` +
        "An on-demand table throttles a hot partition or a jump above twice the previous peak. First look: the dashboard's consumed capacity and the busiest functions.",
      threshold: limits.TABLE_PROBLEMS_THRESHOLD,
      evaluationPeriods: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const usingMetrics = Object.fromEntries(
      TABLE_OPERATIONS.map((operation) => [
        operation.toLowerCase(),
        metric('SystemErrors', { Operation: operation }),
      ]),
    );
    const systemErrors = new cloudwatch.MathExpression({
      expression: Object.keys(usingMetrics).join(' + '),
      usingMetrics,
      period: FIVE_MINUTES,
      label: 'System errors',
    }).createAlarm(this, 'TableSystemErrors', {
      alarmDescription:
        `Table: DynamoDB failed ${limits.TABLE_PROBLEMS_THRESHOLD} or more requests itself (HTTP 500) in 5 minutes, twice running. ` +
        'Not ours to fix: check the AWS Health Dashboard for DynamoDB in the region; the API answers 503 with cause "unreachable" meanwhile.',
      threshold: limits.TABLE_PROBLEMS_THRESHOLD,
      evaluationPeriods: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    return [this.add(throttles), this.add(systemErrors)];
  }

  /** A Cognito trigger that fails (infra/function-alarms.ts, `triggerAlarm`). */
  watchTrigger(trigger: TriggerName, functionName: string): cloudwatch.Alarm {
    return this.add(triggerAlarm(this, trigger, functionName));
  }

  /** The change-event publisher (infra/function-alarms.ts, `eventPublisherAlarms`). */
  watchEventPublisher(functionName: string, deadLetterQueueName: string): cloudwatch.Alarm[] {
    return eventPublisherAlarms(this, functionName, deadLetterQueueName).map((alarm) => this.add(alarm));
  }

  /** Webhook deliveries (infra/function-alarms.ts, `webhookAlarms`). */
  watchWebhooks(stage: string, webhooks: WebhookNames): cloudwatch.Alarm[] {
    return webhookAlarms(this, stage, webhooks).map((alarm) => this.add(alarm));
  }

  /** Throttled invocations anywhere in the account's region: concurrency is exhausted. */
  watchLambdaThrottles(): cloudwatch.Alarm {
    const alarm = new cloudwatch.Metric({
      namespace: 'AWS/Lambda',
      metricName: 'Throttles',
      period: FIVE_MINUTES,
      statistic: 'Sum',
    }).createAlarm(this, 'LambdaThrottles', {
      alarmDescription:
        `Lambda: ${limits.LAMBDA_THROTTLES_THRESHOLD} or more throttled invocations in 5 minutes, twice running (all functions of the account in this region). ` +
        "The account's concurrency is used up: API calls answer 5xx, Cognito triggers fail. First look: the dashboard's busiest functions; then Service Quotas, Lambda concurrent executions.",
      threshold: limits.LAMBDA_THROTTLES_THRESHOLD,
      evaluationPeriods: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    return this.add(alarm);
  }

  /**
   * The stage's mail: its bounces and complaints as a share of its sends (the configuration set's
   * event destination), and the account's SES reputation, which decides whether SES keeps sending.
   */
  watchMail(stage: string): cloudwatch.Alarm[] {
    const dimensionsMap = { [MAIL_METRIC_DIMENSION]: mailConfigurationSetName(stage) };
    const day = Duration.days(1);
    const sent = (metricName: string) =>
      new cloudwatch.Metric({
        namespace: 'AWS/SES',
        metricName,
        dimensionsMap,
        period: day,
        statistic: 'Sum',
      });
    const problems = new cloudwatch.MathExpression({
      expression: `IF(sends >= ${limits.MAIL_MIN_SENDS}, 100 * (bounces + complaints) / sends, 0)`,
      usingMetrics: { sends: sent('Send'), bounces: sent('Bounce'), complaints: sent('Complaint') },
      period: day,
      label: 'Bounces and complaints %',
    }).createAlarm(this, 'MailBounceAndComplaintRate', {
      alarmDescription:
        `Mail of stage ${stage}: ${limits.MAIL_PROBLEM_PERCENT_THRESHOLD}% or more of a day's invites bounced or were marked as spam (once ${limits.MAIL_MIN_SENDS} were sent). ` +
        'First look: the invites of the day (mistyped or stale addresses?) before the account reputation alarms follow.',
      threshold: limits.MAIL_PROBLEM_PERCENT_THRESHOLD,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const reputation = (id: string, metricName: string, threshold: number, reviewedAt: string) =>
      new cloudwatch.Metric({
        namespace: 'AWS/SES',
        metricName,
        period: Duration.hours(1),
        statistic: 'Maximum',
      }).createAlarm(this, id, {
        alarmDescription: `SES ${metricName} of the account at ${threshold * 100}% or more: SES reviews the account's sending from ${reviewedAt}. First look: the SES console's reputation page and the stage's bounce alarm.`,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    return [
      this.add(problems),
      this.add(reputation('SesBounceRate', 'Reputation.BounceRate', limits.SES_BOUNCE_RATE_THRESHOLD, '5%')),
      this.add(
        reputation(
          'SesComplaintRate',
          'Reputation.ComplaintRate',
          limits.SES_COMPLAINT_RATE_THRESHOLD,
          '0.1%',
        ),
      ),
    ];
  }
}
