import { readFileSync } from 'node:fs';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { SIGNAL_FIELDS } from '#lib/observability/signal-fields.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { dashboardBody } from '../../infra/dashboard-picture.ts';
import { metricNamespace } from '../../infra/log-signals.ts';
import { DASHBOARD_PICTURE, dashboardPicture } from '../../infra/write-dashboard-picture.ts';
import { type Json, synthesize } from '../support/cdk-app.ts';

/** Synthesizing the whole app takes ~20 s alone, more on a busy machine. */
const SYNTH_TIMEOUT = 240_000;
const NAMESPACE = metricNamespace('dev');

const resourcesOf = (template: Template, type: string): [string, Json][] =>
  Object.entries(template.toJSON().Resources as Record<string, Json>).filter(
    ([, resource]) => resource.Type === type,
  );

/** The metric filters of one route's function: those on the log group under its construct id. */
function filtersOfRoute(templates: Map<string, Template>, operationId: string): Json[] {
  return [...templates.values()].flatMap((template) =>
    resourcesOf(template, 'AWS::Logs::MetricFilter')
      .filter(([, filter]) =>
        String(filter.Properties.LogGroupName?.Ref ?? '').startsWith(`${operationId}Fn`),
      )
      .map(([, filter]) => filter.Properties),
  );
}

/** What a metric filter publishes: metric name and dimension keys. */
const published = (filter: Json) => ({
  name: filter.MetricTransformations[0].MetricName as string,
  namespace: filter.MetricTransformations[0].MetricNamespace as string,
  dimensions: (filter.MetricTransformations[0].Dimensions ?? []).map((d: Json) => d.Key as string).sort(),
});

describe('operability: signals, alarms, dashboard', () => {
  let templates: Map<string, Template>;
  let stages: Template;
  let filters: ReturnType<typeof published>[];

  beforeAll(() => {
    const built = synthesize();
    templates = built.templates;
    stages = built.template('-Stages');
    filters = [...templates.values()].flatMap((template) =>
      resourcesOf(template, 'AWS::Logs::MetricFilter').map(([, filter]) => published(filter.Properties)),
    );
  }, SYNTH_TIMEOUT);

  it('counts 503s by cause on every route function, from the field the pipeline logs', () => {
    for (const route of routeTable) {
      const unavailable = filtersOfRoute(templates, route.operationId).find(
        (filter) => published(filter).name === 'Unavailable',
      );
      expect(unavailable, route.operationId).toMatchObject({
        FilterPattern: `{ $.${SIGNAL_FIELDS.unavailableCause} = "*" }`,
        MetricTransformations: [
          expect.objectContaining({
            MetricNamespace: NAMESPACE,
            Dimensions: [{ Key: 'Cause', Value: `$.${SIGNAL_FIELDS.unavailableCause}` }],
          }),
        ],
      });
    }
  });

  it('counts OAuth events where they are logged: the token endpoint and the console disconnect', () => {
    const route = (method: string, path: string) =>
      routeTable.find((candidate) => candidate.method === method && candidate.path === path)?.operationId ??
      '';
    for (const operationId of [
      route('POST', '/oauth/token'),
      route('DELETE', '/api/v1/oauth/grants/{grant_id}'),
    ]) {
      expect(
        filtersOfRoute(templates, operationId).map((filter) => published(filter).name),
        operationId,
      ).toContain('OAuthEvents');
    }
    const apply = route('POST', '/api/v1/edits/changesets/{changeset_id}/apply');
    const revert = route('POST', '/api/v1/edits/changesets/{changeset_id}/revert');
    const mcp = route('POST', '/mcp');
    for (const operationId of [apply, revert, mcp]) {
      expect(
        filtersOfRoute(templates, operationId).map((filter) => published(filter).name),
        operationId,
      ).toContain('Changesets');
    }
    for (const idempotent of routeTable.filter((candidate) => candidate.idempotent)) {
      expect(
        filtersOfRoute(templates, idempotent.operationId).map((filter) => published(filter).name),
        idempotent.operationId,
      ).toContain('IdempotencyConflicts');
    }
  });

  it('counts 401s and 403s per surface from the access logs, whose status is a string', () => {
    const accessFilters = resourcesOf(stages, 'AWS::Logs::MetricFilter').map(
      ([, filter]) => filter.Properties,
    );
    const names = accessFilters.map((filter) => published(filter).name).sort();
    expect(names).toEqual(
      ['Console', 'Edits', 'Mcp', 'OAuth'].flatMap((surface) => [`${surface}401`, `${surface}403`]).sort(),
    );
    const mcp401 = accessFilters.find((filter) => published(filter).name === 'Mcp401');
    expect(mcp401.FilterPattern).toBe('{ ($.status = "401") && ($.routeKey = "* /mcp") }');
    // The access log writes the status quoted, as the filters compare it.
    const stage = resourcesOf(stages, 'AWS::ApiGatewayV2::Stage')[0]?.[1];
    expect(JSON.parse(stage.Properties.AccessLogSettings.Format)).toMatchObject({
      status: '$context.status',
      routeKey: '$context.routeKey',
    });
  });

  it('has no alarm per API function: their errors are alarmed as 5xx rates of the APIs', () => {
    for (const [name, template] of templates) {
      if (!name.includes('-Routes-')) continue;
      expect(resourcesOf(template, 'AWS::CloudWatch::Alarm'), name).toEqual([]);
    }
  });

  it('alarms on what a person acts on, each saying what it means and what to look at first', () => {
    const alarms = resourcesOf(stages, 'AWS::CloudWatch::Alarm').map(([id, alarm]) => ({
      id,
      ...alarm.Properties,
    }));
    const ids = alarms.map((alarm) => alarm.id.replace(/[0-9A-F]{8}$/, '')).sort();
    expect(ids).toEqual(
      [
        'AlarmsConsole5xxRate',
        'AlarmsConsoleP99Latency',
        'AlarmsConsoleUnauthorizedBurst',
        'AlarmsAssistant5xxRate',
        'AlarmsAssistantP99Latency',
        'AlarmsAssistantUnauthorizedBurst',
        'AlarmsMailBounceAndComplaintRate',
        'AlarmsSesBounceRate',
        'AlarmsSesComplaintRate',
        'AlarmsOAuthReuseRevocations',
        'AlarmsTableThrottles',
        'AlarmsTableSystemErrors',
        'AlarmsLambdaThrottles',
        'AlarmsPreSignUpTriggerErrors',
        'AlarmsPostConfirmationTriggerErrors',
        'AlarmsPreTokenGenerationTriggerErrors',
        'AlarmsEventsIteratorAge',
        'AlarmsEventsDeadLetters',
        'AlarmsEventsPublisherErrors',
        'AlarmsWebhookDeliveriesFailing',
        'AlarmsWebhookSubscriptionsDisabled',
        'AlarmsWebhookDeadLetters',
        'AlarmsWebhookDelivererErrors',
        'AlarmsWebhookSweeperErrors',
      ].sort(),
    );
    for (const alarm of alarms) {
      expect(alarm.AlarmDescription, alarm.id).toMatch(/First look|Not ours to fix/);
      expect(alarm.TreatMissingData, alarm.id).toBe('notBreaching');
    }
    const byId = (prefix: string) => alarms.find((alarm) => alarm.id.startsWith(prefix));
    // A rate, guarded by a minimum of requests, not a count of errors.
    const rate = byId('AlarmsConsole5xxRate');
    expect(rate.Metrics.find((query: Json) => query.Expression)?.Expression).toBe(
      'IF(requests >= 20, 100 * errors / requests, 0)',
    );
    expect(byId('AlarmsAssistantP99Latency')).toMatchObject({
      ExtendedStatistic: 'p99',
      MetricName: 'Latency',
    });
    const metricNames = (prefix: string) =>
      (byId(prefix).Metrics ?? [])
        .filter((query: Json) => query.MetricStat)
        .map((query: Json) => query.MetricStat.Metric.MetricName)
        .sort();
    expect(metricNames('AlarmsTableThrottles')).toEqual(['ReadThrottleEvents', 'WriteThrottleEvents']);
    expect(new Set(metricNames('AlarmsTableSystemErrors'))).toEqual(new Set(['SystemErrors']));
    expect(metricNames('AlarmsMailBounceAndComplaintRate')).toEqual(['Bounce', 'Complaint', 'Send']);
    // No alarm pages on a single error in a single period; but one dead-lettered stream record is
    // an event lost to the feed and the bus, after 10 retries or a day of them; one dead-lettered
    // webhook queue message, 5 receipts with the table failing; and one disabled subscription,
    // 3 days of failures (or a 410, or a revoked key) that stop an agent's deliveries.
    const onFirst = (id: string) =>
      id.startsWith('AlarmsSes') ||
      id.startsWith('AlarmsEventsDeadLetters') ||
      id.startsWith('AlarmsWebhookDeadLetters') ||
      id.startsWith('AlarmsWebhookSubscriptionsDisabled');
    for (const alarm of alarms.filter((candidate) => !onFirst(candidate.id))) {
      expect(alarm.Threshold * alarm.EvaluationPeriods, alarm.id).toBeGreaterThanOrEqual(2);
    }
  });

  it('alarms on each Cognito trigger by the function name the stateful stack publishes', () => {
    const stateful = [...templates].find(([name]) => name.endsWith('-Stateful'))?.[1] as Template;
    const parameters = stages.toJSON().Parameters as Record<string, Json>;
    for (const trigger of ['PreSignUp', 'PostConfirmation', 'PreTokenGeneration']) {
      const alarm = resourcesOf(stages, 'AWS::CloudWatch::Alarm').find(([id]) =>
        id.startsWith(`Alarms${trigger}TriggerErrors`),
      )?.[1];
      const ref = alarm.Properties.Dimensions[0].Value.Ref;
      const written = resourcesOf(stateful, 'AWS::SSM::Parameter').find(
        ([, parameter]) => parameter.Properties.Name === parameters[ref].Default,
      )?.[1];
      const fn = written?.Properties.Value.Ref as string;
      expect(fn, trigger).toMatch(new RegExp(`^${trigger}Function`));
      expect(stateful.toJSON().Resources[fn].Type).toBe('AWS::Lambda::Function');
    }
  });

  it("draws its widgets only from metrics that exist: AWS's own, or ones a metric filter publishes", () => {
    const body = dashboardBody(stages.toJSON());
    const titles = body.widgets.map((widget) => widget.properties.title);
    expect(titles).toEqual(
      expect.arrayContaining([
        'Requests per API',
        '4xx and 5xx per API',
        'Latency per API (ms)',
        'Busiest functions (invocations)',
        'Slowest functions (p99 duration, ms)',
        'Table: consumed capacity',
        'Table: throttles and system errors',
        'Mail: sent, delivered, bounced, complained (per hour)',
        'OAuth activity',
        '503s by cause',
      ]),
    );
    let ours = 0;
    for (const widget of body.widgets) {
      for (const entry of widget.properties.metrics ?? []) {
        const options = entry.find((part: Json) => typeof part === 'object') ?? {};
        if (options.expression) {
          const search = /SEARCH\('\{([^,}]+)((?:,[^,}]+)*)\} MetricName="([^"]+)"/.exec(options.expression);
          expect(search, options.expression).not.toBeNull();
          const [, namespace, dims, name] = search as RegExpExecArray;
          if (namespace !== NAMESPACE) continue;
          ours += 1;
          expect(filters, options.expression).toContainEqual({
            namespace,
            name,
            dimensions: (dims ?? '').split(',').filter(Boolean).sort(),
          });
        } else if (entry[0] === NAMESPACE) {
          ours += 1;
          expect(
            filters.map((filter) => filter.name),
            entry[1],
          ).toContain(entry[1]);
        } else {
          expect(entry[0], JSON.stringify(entry)).toMatch(/^AWS\/(ApiGateway|Lambda|DynamoDB|SES|SQS)$/);
        }
      }
    }
    expect(ours).toBeGreaterThan(0);
    const alarmWidget = body.widgets.find((widget) => widget.type === 'alarm');
    expect(alarmWidget?.properties.alarms).toHaveLength(resourcesOf(stages, 'AWS::CloudWatch::Alarm').length);
  });

  it('every alarm on a metric of the namespace reads a metric a filter publishes', () => {
    const reads = resourcesOf(stages, 'AWS::CloudWatch::Alarm').flatMap(([, alarm]) =>
      (alarm.Properties.Metrics ?? [])
        .filter((query: Json) => query.MetricStat?.Metric.Namespace === NAMESPACE)
        .map((query: Json) => query.MetricStat.Metric),
    );
    expect(reads.length).toBeGreaterThan(0);
    for (const metric of reads) {
      expect(filters, metric.MetricName).toContainEqual({
        namespace: NAMESPACE,
        name: metric.MetricName,
        dimensions: (metric.Dimensions ?? []).map((d: Json) => d.Name).sort(),
      });
    }
  });

  it(
    'the deploy guide shows the dashboard as it is synthesized now',
    () => {
      expect(readFileSync(DASHBOARD_PICTURE, 'utf8'), 'run npm run dashboard:picture').toBe(
        dashboardPicture(),
      );
    },
    SYNTH_TIMEOUT,
  );

  it(
    'with another issuer there are no Cognito triggers: no trigger alarm reads a parameter nobody writes',
    () => {
      const other = synthesize({ issuer: 'https://login.customer.test', issuerAudience: 'console' });
      const written = new Set(
        Object.values(other.resources())
          .filter((resource) => resource.Type === 'AWS::SSM::Parameter')
          .map((resource) => resource.Properties?.Name),
      );
      const read = Object.values(other.template('-Stages').toJSON().Parameters as Record<string, Json>)
        .filter((parameter) => String(parameter.Type).startsWith('AWS::SSM::Parameter::Value'))
        .map((parameter) => parameter.Default as string)
        .filter((name) => name.startsWith('/business-platform/'));
      expect(read.length).toBeGreaterThan(0);
      for (const name of read) expect(written, name).toContain(name);
      const alarmIds = resourcesOf(other.template('-Stages'), 'AWS::CloudWatch::Alarm').map(([id]) => id);
      expect(alarmIds.filter((id) => id.includes('Trigger'))).toEqual([]);
    },
    SYNTH_TIMEOUT,
  );
});

describe('the dashboard of a stage with a long name', () => {
  it(
    "finds the stage's functions by the names they are given, which no stage's length cuts",
    () => {
      // 20 characters, the longest a stage may have: CloudFormation would cut the stack's name out
      // of the function names it makes up.
      const stage = 'staging-eu-central-1';
      const app = synthesize({
        stage,
        sesSender: 'no-reply@mail.customer.test',
        consoleUrl: 'https://console.customer.test',
      });
      const ours = Object.values(app.resources()).filter(
        (resource) =>
          resource.Type === 'AWS::Lambda::Function' &&
          resource.Properties?.Environment?.Variables?.POWERTOOLS_SERVICE_NAME === 'business-platform',
      );
      // Every route's function, the three Cognito triggers, the key set's fetch, the publisher and
      // the two webhook delivery functions.
      expect(ours).toHaveLength(routeTable.length + 7);
      const names: string[] = ours.map((fn) => fn.Properties?.FunctionName);
      for (const name of names) {
        expect(name).toMatch(/^bp-staging-eu-central-1-[A-Za-z]+$/);
        expect(name.length, name).toBeLessThanOrEqual(64);
      }
      expect(new Set(names).size).toBe(names.length);
      expect(names).toContain('bp-staging-eu-central-1-getAuthorizationServerMetadata');

      const searches = dashboardBody(app.template('-Stages').toJSON())
        .widgets.filter((widget) => /functions/i.test(widget.properties.title ?? ''))
        .flatMap((widget) => widget.properties.metrics ?? [])
        .map((entry: Json[]) => entry.find((part) => typeof part === 'object')?.expression as string);
      expect(searches).toHaveLength(3);
      for (const search of searches) {
        expect(search).toMatch(
          /^SORT\(SEARCH\('\{AWS\/Lambda,FunctionName\} MetricName="\w+" "bp-staging-eu-central-1-"'/,
        );
      }
    },
    SYNTH_TIMEOUT,
  );
});
