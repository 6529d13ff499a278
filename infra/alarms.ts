import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';

const PERIOD = Duration.minutes(5);
/** A 5xx share above this (percent of requests, over two 5-minute periods) pages someone. */
export const API_5XX_PERCENT_THRESHOLD = 5;

/**
 * The alarms every stack adds the same way: function errors and throttles (one alarm per
 * function, both metrics summed), and the 5xx rate of an HTTP API stage. All notify one SNS topic
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
}
