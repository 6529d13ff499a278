import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import type { TriggerName } from './function-alarms.ts';
import { functionNamePrefix } from './function-name.ts';
import { metricNamespace, SURFACES, surfaceStatusMetric, WEBHOOK_DELIVERY_SIGNAL } from './log-signals.ts';
import { MAIL_METRIC_DIMENSION, mailConfigurationSetName } from './mail.ts';

const PERIOD = Duration.minutes(5);
const WIDTH = 8;
const HEIGHT = 6;

export interface ServiceDashboardProps {
  stage: string;
  apiIds: { console: string; assistant: string };
  tableName: string;
  /** The Cognito triggers' function names; none when the console signs in with another issuer. */
  triggers: Partial<Record<TriggerName, string>>;
  /** The change-event publisher's function and its dead-letter queue (infra/events-stack.ts). */
  events: { publisherFunctionName: string; deadLetterQueueName: string };
  /** The webhook delivery functions and their queues (infra/webhook-delivery.ts). */
  webhooks: {
    delivererFunctionName: string;
    sweeperFunctionName: string;
    queueName: string;
    deadLetterQueueName: string;
  };
  alarms: cloudwatch.IAlarm[];
}

/**
 * A metric search over the stage's functions, the 10 highest by `order` (no per-function widgets
 * to keep). It finds them by the prefix every function name of the stage starts with, which,
 * unless another stage's name begins with this one's and a dash, is theirs alone.
 */
const topFunctions = (stage: string, metricName: string, statistic: string, order: string, label: string) =>
  new cloudwatch.MathExpression({
    expression: `SORT(SEARCH('{AWS/Lambda,FunctionName} MetricName="${metricName}" "${functionNamePrefix(stage)}"', '${statistic}', ${PERIOD.toSeconds()}), ${order}, DESC, 10)`,
    usingMetrics: {},
    period: PERIOD,
    label,
  });

/** Every value of one dimension of a metric of the service's namespace. */
const byDimension = (stage: string, metricName: string, dimension: string, label: string) =>
  new cloudwatch.MathExpression({
    expression: `SEARCH('{${metricNamespace(stage)},${dimension}} MetricName="${metricName}"', 'Sum', ${PERIOD.toSeconds()})`,
    usingMetrics: {},
    period: PERIOD,
    label,
  });

/**
 * One CloudWatch dashboard of the stage, read top to bottom: the APIs (requests, errors, latency),
 * who is refused and why 503s happen, the functions doing the most and taking longest, the table,
 * the Cognito triggers, mail, what the service does (OAuth, changesets), the change-event publisher,
 * the webhook deliveries, and every alarm's state.
 */
export class ServiceDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const { stage } = props;
    const api = (surface: 'console' | 'assistant', metricName: string, statistic = 'Sum') =>
      new cloudwatch.Metric({
        namespace: 'AWS/ApiGateway',
        metricName,
        dimensionsMap: { ApiId: props.apiIds[surface], Stage: '$default' },
        period: PERIOD,
        statistic,
        label: `${surface} ${metricName}${statistic === 'Sum' ? '' : ` ${statistic}`}`,
      });
    const table = (metricName: string, dimensions: Record<string, string> = {}) =>
      new cloudwatch.Metric({
        namespace: 'AWS/DynamoDB',
        metricName,
        dimensionsMap: { TableName: props.tableName, ...dimensions },
        period: PERIOD,
        statistic: 'Sum',
        label: metricName,
      });
    const mail = (metricName: string) =>
      new cloudwatch.Metric({
        namespace: 'AWS/SES',
        metricName,
        dimensionsMap: { [MAIL_METRIC_DIMENSION]: mailConfigurationSetName(stage) },
        period: Duration.hours(1),
        statistic: 'Sum',
        label: metricName,
      });
    const graph = (title: string, left: cloudwatch.IMetric[], right: cloudwatch.IMetric[] = []) =>
      new cloudwatch.GraphWidget({ title, left, right, width: WIDTH, height: HEIGHT });
    const surfaces = SURFACES.map((surface) => surface.name);
    const triggers = Object.entries(props.triggers) as [TriggerName, string][];
    const lambda = (metricName: string, functionName: string, label: string) =>
      new cloudwatch.Metric({
        namespace: 'AWS/Lambda',
        metricName,
        dimensionsMap: { FunctionName: functionName },
        period: PERIOD,
        statistic: 'Sum',
        label,
      });

    const publisher = props.events.publisherFunctionName;
    const { webhooks } = props;
    const queue = (metricName: string, queueName: string, statistic: string, label: string) =>
      new cloudwatch.Metric({
        namespace: 'AWS/SQS',
        metricName,
        dimensionsMap: { QueueName: queueName },
        period: PERIOD,
        statistic,
        label,
      });

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `BusinessPlatform-${stage}`,
      defaultInterval: Duration.hours(3),
      widgets: [
        [
          graph('Requests per API', [api('console', 'Count'), api('assistant', 'Count')]),
          graph('4xx and 5xx per API', [
            api('console', '4xx'),
            api('assistant', '4xx'),
            api('console', '5xx'),
            api('assistant', '5xx'),
          ]),
          graph('Latency per API (ms)', [
            api('console', 'Latency', 'p50'),
            api('console', 'Latency', 'p99'),
            api('assistant', 'Latency', 'p50'),
            api('assistant', 'Latency', 'p99'),
          ]),
        ],
        [
          graph(
            '401s per surface',
            surfaces.map((surface) => surfaceStatusMetric(stage, surface, '401').with({ label: surface })),
          ),
          graph(
            '403s per surface',
            surfaces.map((surface) => surfaceStatusMetric(stage, surface, '403').with({ label: surface })),
          ),
          graph('503s by cause', [byDimension(stage, 'Unavailable', 'Cause', '503s')]),
        ],
        [
          graph('Busiest functions (invocations)', [
            topFunctions(stage, 'Invocations', 'Sum', 'SUM', 'Invocations'),
          ]),
          graph('Slowest functions (p99 duration, ms)', [
            topFunctions(stage, 'Duration', 'p99', 'MAX', 'p99 duration'),
          ]),
          graph('Functions with errors', [topFunctions(stage, 'Errors', 'Sum', 'SUM', 'Errors')]),
        ],
        [
          graph('Table: consumed capacity', [
            table('ConsumedReadCapacityUnits'),
            table('ConsumedWriteCapacityUnits'),
          ]),
          graph('Table: throttles and system errors', [
            table('ReadThrottleEvents'),
            table('WriteThrottleEvents'),
            new cloudwatch.MathExpression({
              expression: `SEARCH('{AWS/DynamoDB,Operation,TableName} MetricName="SystemErrors" TableName="${props.tableName}"', 'Sum', ${PERIOD.toSeconds()})`,
              usingMetrics: {},
              period: PERIOD,
              label: 'SystemErrors',
            }),
          ]),
          graph(
            'Cognito triggers: invocations and errors',
            triggers.map(([name, fn]) => lambda('Invocations', fn, `${name} invocations`)),
            triggers.map(([name, fn]) => lambda('Errors', fn, `${name} errors`)),
          ),
        ],
        [
          graph('Mail: sent, delivered, bounced, complained (per hour)', [
            mail('Send'),
            mail('Delivery'),
            mail('Bounce'),
            mail('Complaint'),
          ]),
          graph('OAuth activity', [byDimension(stage, 'OAuthEvents', 'Event', 'OAuth events')]),
          graph('Changesets and Idempotency-Key conflicts', [
            byDimension(stage, 'Changesets', 'Outcome', 'Changesets'),
            byDimension(stage, 'IdempotencyConflicts', 'Kind', 'Idempotency conflicts'),
          ]),
        ],
        [
          graph(
            'Change events: publisher invocations and errors',
            [lambda('Invocations', publisher, 'Invocations')],
            [lambda('Errors', publisher, 'Errors')],
          ),
          graph('Change events: stream iterator age (max, ms)', [
            lambda('IteratorAge', publisher, 'Iterator age').with({ statistic: 'Maximum' }),
          ]),
          graph('Change events: dead-letter queue (messages)', [
            queue(
              'ApproximateNumberOfMessagesVisible',
              props.events.deadLetterQueueName,
              'Maximum',
              'Messages visible',
            ),
          ]),
        ],
        [
          graph('Webhooks: deliveries by outcome', [
            byDimension(
              stage,
              WEBHOOK_DELIVERY_SIGNAL.metricName,
              WEBHOOK_DELIVERY_SIGNAL.dimension,
              'Deliveries',
            ),
          ]),
          graph(
            'Webhooks: delivery and sweep invocations and errors',
            [
              lambda('Invocations', webhooks.delivererFunctionName, 'DeliverWebhooks invocations'),
              lambda('Invocations', webhooks.sweeperFunctionName, 'SweepWebhooks invocations'),
            ],
            [
              lambda('Errors', webhooks.delivererFunctionName, 'DeliverWebhooks errors'),
              lambda('Errors', webhooks.sweeperFunctionName, 'SweepWebhooks errors'),
            ],
          ),
          graph(
            'Webhooks: events queue and dead letters (messages; oldest, s)',
            [
              queue('ApproximateNumberOfMessagesVisible', webhooks.queueName, 'Maximum', 'Queued'),
              queue(
                'ApproximateNumberOfMessagesVisible',
                webhooks.deadLetterQueueName,
                'Maximum',
                'Dead letters',
              ),
            ],
            [queue('ApproximateAgeOfOldestMessage', webhooks.queueName, 'Maximum', 'Oldest queued (s)')],
          ),
        ],
        [
          new cloudwatch.AlarmStatusWidget({
            title: 'Alarms',
            alarms: props.alarms,
            width: 3 * WIDTH,
            height: 4,
          }),
        ],
      ],
    });
  }
}
