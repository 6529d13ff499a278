import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { RouteDefinition } from '#lib/http/route.ts';
import { SIGNAL_FIELDS } from '#lib/observability/signal-fields.ts';

/** The one namespace of the service's own metrics, per stage. */
export const metricNamespace = (stage: string) => `BusinessPlatform/${stage}`;

/**
 * Metrics counted from the functions' JSON log lines by CloudWatch metric filters: nothing runs in
 * the functions for them. Each is one metric filter on the log group of every function that can
 * write such a line, all publishing to one metric of the namespace; its dimension is the line's
 * field (a handful of values, so a handful of custom metrics).
 */
export interface LogSignal {
  metricName: string;
  /** The log field that marks the line; its value becomes the dimension. */
  field: string;
  dimension: string;
}

export interface FunctionSignal extends LogSignal {
  /** Which route functions can write the line. */
  writtenBy: (route: RouteDefinition) => boolean;
}

export const FUNCTION_SIGNALS: readonly FunctionSignal[] = [
  // Any function answers 503 when its deadline comes or a dependency fails.
  {
    metricName: 'Unavailable',
    field: SIGNAL_FIELDS.unavailableCause,
    dimension: 'Cause',
    writtenBy: () => true,
  },
  {
    metricName: 'OAuthEvents',
    field: SIGNAL_FIELDS.securityEvent,
    dimension: 'Event',
    // The token and revocation endpoints (oauth), and the console's disconnect (consent).
    writtenBy: (route) => route.area === 'oauth' || route.area === 'consent',
  },
  {
    metricName: 'Changesets',
    field: SIGNAL_FIELDS.changesetEvent,
    dimension: 'Outcome',
    // The edits API and the tool server's apply and revert tools.
    writtenBy: (route) => route.area === 'edits' || route.area === 'mcp',
  },
  {
    metricName: 'IdempotencyConflicts',
    field: SIGNAL_FIELDS.idempotencyConflict,
    dimension: 'Kind',
    writtenBy: (route) => Boolean(route.idempotent),
  },
];

/**
 * Webhook deliveries by outcome (`delivered`, `failed`, `disabled`: the subscription was disabled),
 * from the log lines of the two functions that run them (infra/webhook-delivery.ts), not a route's.
 */
export const WEBHOOK_DELIVERY_SIGNAL: LogSignal = {
  metricName: 'WebhookDeliveries',
  field: SIGNAL_FIELDS.webhookDelivery,
  dimension: 'Outcome',
};

/** One signal's metric filter on one log group. */
export function addLogSignal(
  scope: Construct,
  id: string,
  logGroup: logs.ILogGroup,
  signal: LogSignal,
  stage: string,
): void {
  new logs.MetricFilter(scope, `${id}${signal.metricName}Filter`, {
    logGroup,
    metricNamespace: metricNamespace(stage),
    metricName: signal.metricName,
    filterPattern: logs.FilterPattern.exists(`$.${signal.field}`),
    metricValue: '1',
    dimensions: { [signal.dimension]: `$.${signal.field}` },
  });
}

/** The metric filters of one route's function log group. */
export function addFunctionSignals(
  scope: Construct,
  id: string,
  logGroup: logs.ILogGroup,
  route: RouteDefinition,
  stage: string,
): void {
  for (const signal of FUNCTION_SIGNALS.filter((candidate) => candidate.writtenBy(route))) {
    addLogSignal(scope, id, logGroup, signal, stage);
  }
}

/** One value of a function signal's dimension, as a metric (a sum over `period`). */
export function functionSignalMetric(
  stage: string,
  metricName: string,
  dimensions: Record<string, string>,
  period = Duration.minutes(5),
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: metricNamespace(stage),
    metricName,
    dimensionsMap: dimensions,
    period,
    statistic: 'Sum',
  });
}

/**
 * The parts of the two APIs a person tells apart: the console API as a whole, and on the
 * assistant API the tool server, the edits API and the OAuth server. Matched on the access log's
 * route key ("POST /mcp"); a route key that matches none of the assistant's is not counted there.
 */
export const SURFACES = [
  { name: 'Console', api: 'console', routeKeys: ['*'] },
  { name: 'Mcp', api: 'assistant', routeKeys: ['* /mcp'] },
  { name: 'Edits', api: 'assistant', routeKeys: ['* /api/v1/edits/*'] },
  { name: 'OAuth', api: 'assistant', routeKeys: ['* /oauth/*', 'GET /.well-known/*'] },
] as const;

export type SurfaceName = (typeof SURFACES)[number]['name'];
/** The answers counted per surface: failed authentication and refused access. */
export const COUNTED_STATUSES = ['401', '403'] as const;

export const surfaceStatusMetricName = (surface: SurfaceName, status: (typeof COUNTED_STATUSES)[number]) =>
  `${surface}${status}`;

/** The 401 and 403 counts of each surface of one API, from its access log group. */
export function addAccessLogSignals(
  scope: Construct,
  api: 'console' | 'assistant',
  logGroup: logs.ILogGroup,
  stage: string,
): void {
  for (const surface of SURFACES.filter((candidate) => candidate.api === api)) {
    for (const status of COUNTED_STATUSES) {
      new logs.MetricFilter(scope, `${surface.name}${status}Filter`, {
        logGroup,
        metricNamespace: metricNamespace(stage),
        metricName: surfaceStatusMetricName(surface.name, status),
        filterPattern: logs.FilterPattern.all(
          logs.FilterPattern.stringValue('$.status', '=', status),
          logs.FilterPattern.any(
            ...surface.routeKeys.map((key) => logs.FilterPattern.stringValue('$.routeKey', '=', key)),
          ),
        ),
        metricValue: '1',
      });
    }
  }
}

export function surfaceStatusMetric(
  stage: string,
  surface: SurfaceName,
  status: (typeof COUNTED_STATUSES)[number],
  period = Duration.minutes(5),
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: metricNamespace(stage),
    metricName: surfaceStatusMetricName(surface, status),
    period,
    statistic: 'Sum',
  });
}
