import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { MAIL_METRIC_DIMENSION, mailConfigurationSetName } from './mail.ts';

const PERIOD = Duration.minutes(5);
/** A 5xx share above this (percent of requests, over two 5-minute periods) pages someone. */
export const API_5XX_PERCENT_THRESHOLD = 5;
/** Bounces and complaints of the stage's mail in one day that call for a look at the invites. */
export const MAIL_PROBLEMS_PER_DAY = 3;
/**
 * The account's SES reputation, alarmed a step before SES puts sending under review (a 5% bounce
 * rate, a 0.1% complaint rate), so there is time to act.
 */
export const SES_BOUNCE_RATE_THRESHOLD = 0.04;
export const SES_COMPLAINT_RATE_THRESHOLD = 0.0008;

/**
 * The alarms every stack adds the same way: function errors and throttles (one alarm per
 * function, both metrics summed), the 5xx rate of an HTTP API stage, and the mail's bounces,
 * complaints and SES reputation. All notify one SNS topic
 * (created in the API stack, found through its SSM parameter).
 */
export class ServiceAlarms extends Construct {
  private readonly action: actions.SnsAction;

  constructor(scope: Construct, id: string, props: { topicArn: string }) {
    super(scope, id);
    this.action = new actions.SnsAction(sns.Topic.fromTopicArn(this, 'Topic', props.topicArn));
  }

  /** Invocations that failed (a crash or a timeout: handled errors are responses) or were throttled. */
  watchFunction(id: string, fn: lambda.IFunction): cloudwatch.Alarm {
    const alarm = new cloudwatch.MathExpression({
      expression: 'errors + throttles',
      usingMetrics: {
        errors: fn.metricErrors({ period: PERIOD, statistic: 'Sum' }),
        throttles: fn.metricThrottles({ period: PERIOD, statistic: 'Sum' }),
      },
      period: PERIOD,
      label: 'Errors and throttles',
    }).createAlarm(this, `${id}ErrorsOrThrottles`, {
      alarmDescription: `Function ${id}: failed or throttled invocations`,
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.action);
    return alarm;
  }

  /** The share of 5xx answers of an HTTP API's $default stage. */
  watchHttpApi(id: string, apiId: string): cloudwatch.Alarm {
    const metric = (metricName: string) =>
      new cloudwatch.Metric({
        namespace: 'AWS/ApiGateway',
        metricName,
        dimensionsMap: { ApiId: apiId, Stage: '$default' },
        period: PERIOD,
        statistic: 'Sum',
      });
    const alarm = new cloudwatch.MathExpression({
      expression: 'IF(requests > 0, 100 * errors / requests, 0)',
      usingMetrics: { errors: metric('5xx'), requests: metric('Count') },
      period: PERIOD,
      label: '5xx %',
    }).createAlarm(this, `${id}5xxRate`, {
      alarmDescription: `${id} API: more than ${API_5XX_PERCENT_THRESHOLD}% of answers are 5xx`,
      threshold: API_5XX_PERCENT_THRESHOLD,
      evaluationPeriods: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.action);
    return alarm;
  }

  /**
   * The stage's mail: its bounces and complaints (the configuration set's event destination),
   * and the account's SES reputation, which decides whether SES keeps sending at all.
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
      expression: 'bounces + complaints',
      usingMetrics: { bounces: sent('Bounce'), complaints: sent('Complaint') },
      period: day,
      label: 'Bounces and complaints',
    }).createAlarm(this, 'MailBouncesAndComplaints', {
      alarmDescription: `Mail of stage ${stage}: ${MAIL_PROBLEMS_PER_DAY} or more bounces and complaints in a day (mistyped or stale invite addresses?)`,
      threshold: MAIL_PROBLEMS_PER_DAY,
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
        alarmDescription: `SES ${metricName} of the account at ${threshold * 100}% or more: SES reviews the account's sending from ${reviewedAt}`,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    const alarms = [
      problems,
      reputation('SesBounceRate', 'Reputation.BounceRate', SES_BOUNCE_RATE_THRESHOLD, '5%'),
      reputation('SesComplaintRate', 'Reputation.ComplaintRate', SES_COMPLAINT_RATE_THRESHOLD, '0.1%'),
    ];
    for (const alarm of alarms) alarm.addAlarmAction(this.action);
    return alarms;
  }
}
