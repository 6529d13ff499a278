import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '#lib/routes/route-table.ts';
import { type Json, synthesize } from '../support/cdk-app.ts';

/** Synthesizing the whole app takes ~10 s alone, more on a busy machine. */
const SYNTH_TIMEOUT = 180_000;

describe('mail, with a domain identity created by the stack', () => {
  let app: ReturnType<typeof synthesize>;
  let stateful: Template;

  beforeAll(() => {
    app = synthesize({ sesSender: 'no-reply@mail.customer.test', sesIdentity: 'mail.customer.test' });
    stateful = app.template('-Stateful');
  }, SYNTH_TIMEOUT);

  it('sends through a configuration set whose bounces and complaints become CloudWatch metrics', () => {
    stateful.hasResourceProperties('AWS::SES::ConfigurationSet', {
      Name: 'business-platform-dev',
      ReputationOptions: { ReputationMetricsEnabled: true },
    });
    stateful.hasResourceProperties('AWS::SES::ConfigurationSetEventDestination', {
      EventDestination: Match.objectLike({
        Enabled: true,
        MatchingEventTypes: Match.arrayWith(['bounce', 'complaint']),
        CloudWatchDestination: {
          DimensionConfigurations: [
            {
              DimensionName: 'ses:configuration-set',
              DimensionValueSource: 'messageTag',
              DefaultDimensionValue: 'business-platform-dev',
            },
          ],
        },
      }),
    });
    // The identity's default set, and the one the invite function names on every send.
    stateful.hasResourceProperties('AWS::SES::EmailIdentity', {
      EmailIdentity: 'mail.customer.test',
      ConfigurationSetAttributes: { ConfigurationSetName: Match.anyValue() },
    });
    const senders = Object.values(app.resources()).filter(
      (resource) =>
        resource.Type === 'AWS::Lambda::Function' && resource.Properties?.Environment?.Variables?.SES_SENDER,
    );
    expect(senders).toHaveLength(routeTable.filter((route) => route.permissions.sendEmail).length);
    for (const fn of senders) {
      expect(fn.Properties?.Environment.Variables.SES_CONFIGURATION_SET).toBe('business-platform-dev');
    }
  });

  it('outputs the three DKIM records to publish', () => {
    for (const index of [1, 2, 3]) {
      stateful.hasOutput(`DkimRecord${index}`, {
        Value: {
          'Fn::Join': [
            '',
            [
              { 'Fn::GetAtt': [Match.anyValue(), `DkimDNSTokenName${index}`] },
              ' CNAME ',
              { 'Fn::GetAtt': [Match.anyValue(), `DkimDNSTokenValue${index}`] },
            ],
          ],
        },
      });
    }
  });

  it('alarms on bounces and complaints of the configuration set and on the account reputation', () => {
    const alarms = Object.values(app.template('-Stages').toJSON().Resources as Record<string, Json>).filter(
      (resource) => resource.Type === 'AWS::CloudWatch::Alarm',
    );
    const metricsOf = (alarm: Json): Json[] =>
      alarm.Properties.Metrics?.flatMap((query: Json) =>
        query.MetricStat ? [query.MetricStat.Metric] : [],
      ) ?? [
        { Namespace: alarm.Properties.Namespace, MetricName: alarm.Properties.MetricName, Dimensions: [] },
      ];
    const mailMetrics = alarms.flatMap(metricsOf).filter((metric) => metric.Namespace === 'AWS/SES');

    expect(mailMetrics).toContainEqual({
      Namespace: 'AWS/SES',
      MetricName: 'Bounce',
      Dimensions: [{ Name: 'ses:configuration-set', Value: 'business-platform-dev' }],
    });
    expect(mailMetrics).toContainEqual({
      Namespace: 'AWS/SES',
      MetricName: 'Complaint',
      Dimensions: [{ Name: 'ses:configuration-set', Value: 'business-platform-dev' }],
    });
    expect(mailMetrics.map((metric) => metric.MetricName)).toEqual(
      expect.arrayContaining(['Reputation.BounceRate', 'Reputation.ComplaintRate']),
    );
  });
});

describe('mail, with an address identity', () => {
  it(
    'outputs no DKIM records (SES mails the address a confirmation link instead)',
    () => {
      const stateful = synthesize().template('-Stateful');
      stateful.hasResourceProperties('AWS::SES::EmailIdentity', { EmailIdentity: 'no-reply@example.com' });
      expect(Object.keys(stateful.toJSON().Outputs ?? {}).filter((name) => name.startsWith('Dkim'))).toEqual(
        [],
      );
    },
    SYNTH_TIMEOUT,
  );
});
