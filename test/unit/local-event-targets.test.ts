import type { SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { eventRules, rateMs, UnsupportedEventRule } from '../../infra/local/events/event-rules.ts';
import { LocalEventBus } from '../../infra/local/events/local-bus.ts';
import { type LocalEvents, startLocalEvents } from '../../infra/local/events/local-events.ts';
import { queueBatchVerdict } from '../../infra/local/events/local-queue.ts';
import { LocalSchedule } from '../../infra/local/events/local-schedule.ts';
import { queueMappings, templateQueues } from '../../infra/local/events/queue-mapping.ts';
import type { BatchDelivery } from '../../infra/local/events/stream-poller.ts';
import { webhookDeliveryTemplate } from '../support/webhook-delivery-template.ts';

/**
 * The local bus's rules, queues and schedules (infra/local/events/local-events.ts), read from a
 * template written as CDK writes infra/webhook-delivery.ts, with a stand-in for the functions.
 */
const QUEUE_ARN = 'arn:aws:sqs:us-east-1:000000000000:BusinessPlatform-local-Events-WebhooksEventsD5F34A63';
const DLQ_ARN =
  'arn:aws:sqs:us-east-1:000000000000:BusinessPlatform-local-Events-WebhooksDeadLettersA656B8E7';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the stand-in DeliverWebhooks received, and how it answers each batch. */
function standIn(answer: (event: SQSEvent, call: number) => BatchDelivery = () => ok) {
  const batches: SQSEvent[] = [];
  const sweeps: unknown[] = [];
  const invoke = async (functionName: string, event: unknown): Promise<BatchDelivery> => {
    if (functionName === 'SweepWebhooks') {
      sweeps.push(event);
      return { returned: true, result: { runs: 0 } };
    }
    batches.push(event as SQSEvent);
    return answer(event as SQSEvent, batches.length);
  };
  return { batches, sweeps, invoke };
}
const ok: BatchDelivery = { returned: true, result: { batchItemFailures: [] } };

const running: LocalEvents[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((events) => events.stop()));
});

function harnessEvents(
  invoke: ReturnType<typeof standIn>['invoke'],
  options: {
    visibilityTimeoutSeconds?: number;
    template?: Parameters<typeof webhookDeliveryTemplate>[0];
  } = {},
) {
  const events = startLocalEvents({
    templates: webhookDeliveryTemplate(options.template),
    rootDir: '.',
    invoke,
    scheduleTimers: false,
    ...(options.visibilityTimeoutSeconds === undefined
      ? {}
      : { visibilityTimeoutSeconds: options.visibilityTimeoutSeconds }),
    log: () => undefined,
  });
  running.push(events);
  const bus = new LocalEventBus((event) => events.route(event));
  const put = (detail: object, source = 'business-platform', busName = 'business-platform-local') =>
    bus.handle({
      method: 'POST',
      target: 'AWSEvents.PutEvents',
      body: Buffer.from(
        JSON.stringify({
          Entries: [
            {
              EventBusName: busName,
              Source: source,
              DetailType: 'record.updated',
              Detail: JSON.stringify(detail),
            },
          ],
        }),
      ),
    });
  return { events, bus, put };
}

const ids = (event: SQSEvent | undefined) => (event?.Records ?? []).map((record) => record.messageId);

describe('the templates read as AWS deploys them', () => {
  it('reads the rule on the bus, its queue target, the schedule and the queue with its mapping', () => {
    const rules = eventRules(webhookDeliveryTemplate());
    expect(rules.busRules).toEqual([
      expect.objectContaining({
        busName: 'business-platform-local',
        targets: [{ kind: 'sqs', id: 'Target0', arn: QUEUE_ARN }],
      }),
    ]);
    expect(rules.scheduleRules).toEqual([
      expect.objectContaining({
        expression: 'rate(1 minute)',
        everyMs: 60_000,
        targets: [expect.objectContaining({ kind: 'lambda', functionName: 'SweepWebhooks' })],
      }),
    ]);
    expect(templateQueues(webhookDeliveryTemplate())).toContainEqual(
      expect.objectContaining({
        arn: QUEUE_ARN,
        visibilityTimeoutSeconds: 360,
        redrive: { deadLetterArn: DLQ_ARN, maxReceiveCount: 5 },
      }),
    );
    expect(queueMappings(webhookDeliveryTemplate())).toEqual([
      expect.objectContaining({
        queueArn: QUEUE_ARN,
        functionName: 'DeliverWebhooks',
        batchSize: 10,
        reportBatchItemFailures: true,
      }),
    ]);
  });

  it('refuses, when it reads them, what it would not deliver as AWS does', () => {
    expect(() =>
      eventRules(webhookDeliveryTemplate({ pattern: { source: [{ 'anything-but': 'x' }] } })),
    ).toThrow(UnsupportedEventRule);
    expect(() => eventRules(webhookDeliveryTemplate({ target: { InputPath: '$.detail' } }))).toThrow(
      /InputPath/,
    );
    expect(eventRules(webhookDeliveryTemplate({ schedule: 'cron(0 12 * * ? *)' })).skipped).toEqual([
      expect.stringContaining('cron(0 12 * * ? *)'),
    ]);
  });

  it('reads rate expressions as EventBridge does (1 singular, else plural)', () => {
    expect(rateMs('rate(1 minute)')).toBe(60_000);
    expect(rateMs('rate(5 minutes)')).toBe(300_000);
    expect(rateMs('rate(2 hours)')).toBe(7_200_000);
    expect(rateMs('rate(1 day)')).toBe(86_400_000);
    expect(rateMs('rate(1 minutes)')).toBeUndefined();
    expect(rateMs('rate(5 minute)')).toBeUndefined();
    expect(rateMs('rate(0 minutes)')).toBeUndefined();
  });
});

describe('rules on the local bus', () => {
  it('puts each event its pattern matches on the queue as the whole envelope, and nothing else', async () => {
    const fn = standIn();
    const { events, bus, put } = harnessEvents(fn.invoke);
    put({ id: 'e1', business_id: 'b1', type: 'record.updated' });
    put({ id: 'e2' }, 'someone-else');
    put({ id: 'e3' }, 'business-platform', 'another-bus');
    await events.idle();

    expect(fn.batches).toHaveLength(1);
    const [record] = fn.batches[0]?.Records ?? [];
    const received = bus.latest().find((event) => event.detail.id === 'e1');
    expect(JSON.parse(record?.body ?? '')).toEqual({
      version: '0',
      id: received?.id,
      'detail-type': 'record.updated',
      source: 'business-platform',
      account: '000000000000',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      region: 'us-east-1',
      resources: [],
      detail: { id: 'e1', business_id: 'b1', type: 'record.updated' },
    });
    expect(record).toMatchObject({
      eventSource: 'aws:sqs',
      eventSourceARN: QUEUE_ARN,
      awsRegion: 'us-east-1',
      attributes: { ApproximateReceiveCount: '1' },
    });
    expect(record?.receiptHandle).toEqual(expect.any(String));
  });

  it('matches by a detail field and a prefix too', async () => {
    const fn = standIn();
    const { events, put } = harnessEvents(fn.invoke, {
      template: { pattern: { source: ['business-platform'], detail: { type: [{ prefix: 'photo.' }] } } },
    });
    put({ id: 'e1', type: 'record.updated' });
    put({ id: 'e2', type: 'photo.added' });
    await events.idle();
    expect(
      fn.batches.flatMap((batch) => batch.Records.map((record) => JSON.parse(record.body).detail.id)),
    ).toEqual(['e2']);
  });
});

describe('the local queue, as its event source mapping reads it', () => {
  it('invokes with at most the batch size', async () => {
    const fn = standIn();
    const { events, put } = harnessEvents(fn.invoke, { template: { batchSize: 3 } });
    for (let n = 0; n < 7; n += 1) put({ id: `e${n}` });
    await events.idle();
    expect(fn.batches.flatMap(ids)).toHaveLength(7);
    expect(Math.max(...fn.batches.map((batch) => batch.Records.length))).toBeLessThanOrEqual(3);
    expect(events.queues.get(QUEUE_ARN)?.size).toBe(0);
  });

  it('gives back only the messages the function names in batchItemFailures, after the visibility timeout', async () => {
    let failed = '';
    const fn = standIn((event, call) => {
      if (call > 1) return ok;
      failed = event.Records[0]?.messageId ?? '';
      return { returned: true, result: { batchItemFailures: [{ itemIdentifier: failed }] } };
    });
    const { events, put } = harnessEvents(fn.invoke, {
      visibilityTimeoutSeconds: 0.3,
      template: { batchSize: 10 },
    });
    const queue = events.queues.get(QUEUE_ARN);
    // Sent together, received together.
    put({ id: 'e1' });
    put({ id: 'e2' });
    await events.idle();
    expect(fn.batches[0]?.Records).toHaveLength(2);
    expect(queue?.state()).toMatchObject({ visible: 0, in_flight: 1 });
    await sleep(100);
    expect(fn.batches).toHaveLength(1); // not before the visibility timeout
    await sleep(350);
    await events.idle();
    expect(ids(fn.batches[1])).toEqual([failed]);
    expect(fn.batches[1]?.Records[0]?.attributes.ApproximateReceiveCount).toBe('2');
    expect(fn.batches[1]?.Records[0]?.receiptHandle).not.toBe(fn.batches[0]?.Records[0]?.receiptHandle);
    expect(queue?.size).toBe(0);
  });

  it('gives back the whole batch when the function fails (an error, a timeout)', async () => {
    const fn = standIn((_event, call) => (call === 1 ? { returned: false, message: 'failed: boom' } : ok));
    const { events, put } = harnessEvents(fn.invoke, { visibilityTimeoutSeconds: 0.2 });
    put({ id: 'e1' });
    await events.idle();
    expect(events.queues.get(QUEUE_ARN)?.state()).toMatchObject({ visible: 0, in_flight: 1 });
    await sleep(300);
    await events.idle();
    expect(fn.batches).toHaveLength(2);
    expect(ids(fn.batches[1])).toEqual(ids(fn.batches[0]));
    expect(events.queues.get(QUEUE_ARN)?.size).toBe(0);
  });

  it(`moves a message to the dead-letter queue after maxReceiveCount receipts`, async () => {
    const fn = standIn((event) => ({
      returned: true,
      result: { batchItemFailures: event.Records.map((record) => ({ itemIdentifier: record.messageId })) },
    }));
    const { events, put } = harnessEvents(fn.invoke, {
      visibilityTimeoutSeconds: 0.05,
      template: { maxReceiveCount: 3 },
    });
    put({ id: 'e1' });
    const deadLetters = events.queues.get(DLQ_ARN);
    const deadline = Date.now() + 5_000;
    while (deadLetters?.size === 0 && Date.now() < deadline) await sleep(20);

    expect(fn.batches.map((batch) => batch.Records[0]?.attributes.ApproximateReceiveCount)).toEqual([
      '1',
      '2',
      '3',
    ]);
    expect(deadLetters?.state().messages).toEqual([
      expect.objectContaining({ message_id: ids(fn.batches[0])[0], body: fn.batches[0]?.Records[0]?.body }),
    ]);
    expect(events.queues.get(QUEUE_ARN)?.size).toBe(0);
  });

  it('reads batchItemFailures as Lambda does', () => {
    const batch = ['m1', 'm2'];
    const answer = (result: unknown): BatchDelivery => ({ returned: true, result });
    expect(queueBatchVerdict(answer({ batchItemFailures: [] }), batch, true)).toEqual({ failed: new Set() });
    expect(queueBatchVerdict(answer(null), batch, true)).toEqual({ failed: new Set() });
    expect(queueBatchVerdict(answer({}), batch, true)).toEqual({ failed: new Set() });
    expect(queueBatchVerdict(answer({ batchItemFailures: [{ itemIdentifier: 'm2' }] }), batch, true)).toEqual(
      {
        failed: new Set(['m2']),
      },
    );
    for (const bad of [
      { itemIdentifier: '' },
      { itemIdentifier: null },
      { id: 'm1' },
      { itemIdentifier: 'm9' },
    ]) {
      expect(queueBatchVerdict(answer({ batchItemFailures: [bad] }), batch, true)).toMatchObject({
        failed: 'all',
      });
    }
    expect(queueBatchVerdict(answer({ batchItemFailures: 'm1' }), batch, true)).toMatchObject({
      failed: 'all',
    });
    // Without ReportBatchItemFailures the answer is not read: returning is success.
    expect(
      queueBatchVerdict(answer({ batchItemFailures: [{ itemIdentifier: 'm1' }] }), batch, false),
    ).toEqual({
      failed: new Set(),
    });
    expect(queueBatchVerdict({ returned: false, message: 'timed out' }, batch, false)).toMatchObject({
      failed: 'all',
    });
  });
});

describe('the schedule', () => {
  it('runs the sweep now with a scheduled event naming its rule', async () => {
    const fn = standIn();
    const { events } = harnessEvents(fn.invoke);
    const runs = await events.runSchedule('SweepWebhooks');
    expect(runs).toEqual([
      expect.objectContaining({
        functionName: 'SweepWebhooks',
        outcome: { returned: true, result: { runs: 0 } },
      }),
    ]);
    expect(fn.sweeps).toEqual([
      {
        version: '0',
        id: expect.any(String),
        'detail-type': 'Scheduled Event',
        source: 'aws.events',
        account: '000000000000',
        time: expect.stringMatching(/Z$/),
        region: 'us-east-1',
        resources: [
          'arn:aws:events:us-east-1:000000000000:rule/BusinessPlatform-local-Events-WebhooksSweepScheduleE161836D',
        ],
        detail: {},
      },
    ]);
    expect(await events.runSchedule('DeliverWebhooks')).toEqual([]);
  });

  it('fires on its own at its rate, retries a failed run as Lambda retries an asynchronous one, and stops', async () => {
    const [rule] = eventRules(webhookDeliveryTemplate()).scheduleRules;
    if (!rule) throw new Error('no schedule rule');
    const fired: string[] = [];
    let calls = 0;
    const schedule = new LocalSchedule({
      // A minute is long for a test: the rule, read from the template, at a shorter rate.
      rules: [{ ...rule, everyMs: 300 }],
      invoke: async (functionName, event) => {
        fired.push(`${functionName} ${event.id}`);
        calls += 1;
        return calls === 1 ? { returned: false, message: 'failed: boom' } : { returned: true, result: null };
      },
      retryDelaysMs: [60],
      log: () => undefined,
    });
    schedule.start();
    await sleep(150);
    expect(fired).toHaveLength(0); // one period after the start, as a new rule
    await sleep(300);
    expect(fired).toHaveLength(2); // the first run failed, and was retried with the same event
    expect(fired[1]).toBe(fired[0]);
    await sleep(300);
    expect(fired).toHaveLength(3);
    expect(fired[2]).not.toBe(fired[0]);
    await schedule.stop();
    await sleep(400);
    expect(fired).toHaveLength(3);
  });
});
