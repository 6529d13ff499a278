import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentKey } from '#lib/auth/agent-keys.ts';
import type { AgentPrincipal } from '#lib/auth/principal.ts';
import { revokeAgentKey } from '#lib/auth/revoke-agent-key.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import type { EventType } from '#lib/events/change-event.ts';
import { RETRY_DELAYS_MS } from '#lib/webhooks/backoff.ts';
import { listDeliveries } from '#lib/webhooks/deliveries.ts';
import { sweep } from '#lib/webhooks/dispatch.ts';
import { redeliver } from '#lib/webhooks/one-off.ts';
import { requestReplay } from '#lib/webhooks/replays.ts';
import { runSubscription, wakeAndRun } from '#lib/webhooks/run.ts';
import { createWebhook, readSubscription, rotateWebhookSecret } from '#lib/webhooks/store.ts';
import { appendFeedEvents, changeEvent } from '../support/feed-items.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * Delivery runs (lib/webhooks/run.ts) in this process against DynamoDB Local, with events put
 * straight into the feed for businesses of this file's own and a real receiver on a loopback port.
 *
 * The clock the runs get is 30 days ahead of the wall clock and moved by the tests: retries and
 * their backoff are scheduled on it, so a test sees a retry come due without waiting, and the
 * harness's own sweep (every minute, on the wall clock, over every subscription) never finds these
 * subscriptions due. The signatures' timestamps stay on the wall clock, as receivers check them.
 */
process.env.WEBHOOKS_ALLOW_LOOPBACK_HTTP = 'true';

const DAY = 24 * 3600 * 1000;
let clock = Date.now() + 30 * DAY;
const now = () => new Date(clock);
const later = (ms: number) => {
  clock += ms;
};
/** A run's options: the test clock, no jitter (factor 1), and a minute to run. */
const run = () => ({ now, random: () => 0.5, deadline: Date.now() + 60_000 });

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver.close());

/** An agent key of fresh businesses, as the delivery run checks it. */
async function agentOf(businesses: string[]): Promise<AgentPrincipal> {
  const { record } = await createAgentKey({ name: 'webhook-test', businesses, scopes: ['read'] });
  return { kind: 'agent', keyId: record.key_id, name: record.name, businesses, scopes: ['read'] };
}

/** A subscription of a key of one fresh business, to the receiver; its own path tells it apart. */
async function subscribed(types?: EventType[]) {
  const businessId = randomUUID();
  const agent = await agentOf([businessId]);
  const path = `/hooks/${randomUUID()}`;
  const { subscription, secret } = await createWebhook(
    agent,
    { url: receiver.url.replace('/hooks', path), types },
    now(),
  );
  return { businessId, agent, subscription, secret, path };
}

/** Deliveries the receiver got for one subscription (its URL's path). */
const at = (path: string) => receiver.received.filter((delivery) => delivery.path === path);

describe('a delivery run', () => {
  it('posts the events of its businesses in feed order, once each, signed so that standardwebhooks verifies them', async () => {
    const mine = await subscribed();
    const events = [
      changeEvent(mine.businessId, 'record.created'),
      changeEvent(randomUUID(), 'record.created'), // another business: never posted
      changeEvent(mine.businessId, 'record.updated'),
      changeEvent(mine.businessId, 'photo.added'),
    ];
    await appendFeedEvents(events);

    expect(await wakeAndRun(mine.subscription.webhook_id, run())).toBe('caught_up');
    const got = at(mine.path);
    expect(got.map((delivery) => delivery.headers['webhook-id'])).toEqual([
      events[0]?.id,
      events[2]?.id,
      events[3]?.id,
    ]);
    for (const delivery of got) {
      expect(receiver.verify(delivery, mine.secret)).toMatchObject({ type: delivery.message.type });
      expect(delivery.message.data).toMatchObject({ business_id: mine.businessId });
      expect(delivery.headers['content-type']).toBe('application/json');
    }
    // Nothing new: a second run posts nothing again.
    expect(await wakeAndRun(mine.subscription.webhook_id, run())).toBe('caught_up');
    expect(at(mine.path)).toHaveLength(3);
    const { deliveries } = await listDeliveries(mine.subscription.webhook_id, { limit: 10 }, now());
    expect(deliveries.map((attempt) => [attempt.event_id, attempt.outcome, attempt.trigger])).toEqual(
      [events[3], events[2], events[0]].map((event) => [event?.id, 'delivered', 'event']),
    );
  });

  it('posts only the types the subscription names, and moves past the others', async () => {
    const mine = await subscribed(['record.deleted']);
    const events = [
      changeEvent(mine.businessId, 'record.created'),
      changeEvent(mine.businessId, 'record.deleted'),
    ];
    const seqs = await appendFeedEvents(events);
    await wakeAndRun(mine.subscription.webhook_id, run());
    expect(at(mine.path).map((delivery) => delivery.headers['webhook-id'])).toEqual([events[1]?.id]);
    expect((await readSubscription(mine.subscription.webhook_id))?.cursor_seq).toBeGreaterThanOrEqual(
      seqs.at(-1) ?? Number.POSITIVE_INFINITY,
    );
  });

  it("never posts another business's events to a key of one business", async () => {
    const mine = await subscribed();
    const theirs = await subscribed();
    const events = [
      changeEvent(theirs.businessId, 'record.created'),
      changeEvent(mine.businessId, 'record.created'),
    ];
    await appendFeedEvents(events);
    await wakeAndRun(mine.subscription.webhook_id, run());
    await wakeAndRun(theirs.subscription.webhook_id, run());
    expect(at(mine.path).map((delivery) => delivery.headers['webhook-id'])).toEqual([events[1]?.id]);
    expect(at(theirs.path).map((delivery) => delivery.headers['webhook-id'])).toEqual([events[0]?.id]);
  });

  it('signs with both secrets for 24 hours after a rotation, then with the new one only', async () => {
    const mine = await subscribed();
    const rotated = await rotateWebhookSecret(mine.agent, mine.subscription.webhook_id, now());
    await appendFeedEvents([changeEvent(mine.businessId, 'record.created')]);
    await wakeAndRun(mine.subscription.webhook_id, run());
    const [overlap] = at(mine.path);
    if (!overlap) throw new Error('no delivery');
    expect(String(overlap.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(receiver.verify(overlap, mine.secret)).toBeTruthy();
    expect(receiver.verify(overlap, rotated.secret)).toBeTruthy();

    later(DAY + 60_000);
    await appendFeedEvents([changeEvent(mine.businessId, 'record.updated')]);
    await wakeAndRun(mine.subscription.webhook_id, run());
    const after = at(mine.path)[1];
    if (!after) throw new Error('no second delivery');
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(receiver.verify(after, rotated.secret)).toBeTruthy();
    expect(() => receiver.verify(after, mine.secret)).toThrow();
  });
});

describe('an endpoint that fails', () => {
  it('is retried on the backoff schedule, and once back gets what it missed, oldest first', async () => {
    const mine = await subscribed();
    const id = mine.subscription.webhook_id;
    const down = await startWebhookReceiver();
    await dynamo.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...(await rawSubscription(id)), url: down.url },
      }),
    );
    down.answer(503);
    const events = [
      changeEvent(mine.businessId, 'record.created'),
      changeEvent(mine.businessId, 'record.updated'),
    ];
    await appendFeedEvents(events);

    expect(await wakeAndRun(id, run())).toBe('failed');
    const failing = await readSubscription(id);
    expect(failing).toMatchObject({ failures: 1, last_error: 'HTTP 503' });
    expect(Date.parse(failing?.next_attempt_at ?? '')).toBe(clock + (RETRY_DELAYS_MS[0] as number));
    // A new event does not jump the queue: the run is not due before its retry.
    await appendFeedEvents([changeEvent(mine.businessId, 'record.deleted')]);
    expect(await wakeAndRun(id, run())).toBe('skipped');
    later(30_000);
    expect((await sweep(run())).get(id)).toBeUndefined();

    // Due: tried again, fails again, the next wait is the schedule's second.
    later(31_000);
    expect((await sweep(run())).get(id)).toBe('failed');
    const second = await readSubscription(id);
    expect(second?.failures).toBe(2);
    expect(Date.parse(second?.next_attempt_at ?? '')).toBe(clock + (RETRY_DELAYS_MS[1] as number));
    const [lastAttempt] = (await listDeliveries(id, { limit: 1 }, now())).deliveries;
    expect(lastAttempt).toMatchObject({
      outcome: 'failed',
      status_code: 503,
      trigger: 'retry',
      event_id: events[0]?.id,
    });
    // The log says when the endpoint is tried next.
    expect(lastAttempt?.next_retry_at).toBe(second?.next_attempt_at);

    // Back: everything it missed, in order, and the streak is over.
    down.answer(200);
    later(RETRY_DELAYS_MS[1] as number);
    expect((await sweep(run())).get(id)).toBe('caught_up');
    const ids = down.received
      .filter((delivery) => delivery.answered === 200)
      .map((delivery) => delivery.headers['webhook-id']);
    expect(ids).toHaveLength(3);
    expect(ids.slice(0, 2)).toEqual(events.map((event) => event.id));
    const recovered = await readSubscription(id);
    expect(recovered?.failures).toBe(0);
    expect(recovered?.failing_since).toBeUndefined();
    expect(recovered?.last_error).toBeUndefined();
    await down.close();
  });

  it('is disabled at once by 410 Gone', async () => {
    const mine = await subscribed();
    const id = mine.subscription.webhook_id;
    const gone = await startWebhookReceiver();
    await dynamo.send(
      new PutCommand({ TableName: tableName, Item: { ...(await rawSubscription(id)), url: gone.url } }),
    );
    gone.answer(410);
    await appendFeedEvents([changeEvent(mine.businessId, 'record.created')]);
    expect(await wakeAndRun(id, run())).toBe('disabled');
    expect(await readSubscription(id)).toMatchObject({ enabled: false, disabled_reason: 'gone' });
    await appendFeedEvents([changeEvent(mine.businessId, 'record.updated')]);
    expect(await wakeAndRun(id, run())).toBe('skipped');
    expect(gone.received).toHaveLength(1);
    await gone.close();
  });

  it('is disabled after three days of failures', async () => {
    const mine = await subscribed();
    const id = mine.subscription.webhook_id;
    const broken = await startWebhookReceiver();
    await dynamo.send(
      new PutCommand({ TableName: tableName, Item: { ...(await rawSubscription(id)), url: broken.url } }),
    );
    broken.answer(500);
    await appendFeedEvents([changeEvent(mine.businessId, 'record.created')]);
    expect(await wakeAndRun(id, run())).toBe('failed');
    let outcome: string | undefined;
    for (let attempt = 0; attempt < 20 && outcome !== 'disabled'; attempt++) {
      const due = Date.parse((await readSubscription(id))?.next_attempt_at ?? '');
      clock = due + 1000;
      outcome = (await sweep(run())).get(id);
    }
    const disabled = await readSubscription(id);
    expect(disabled).toMatchObject({ enabled: false, disabled_reason: 'failing', last_error: 'HTTP 500' });
    // Retried for at least a day before giving up, and given up on at three days.
    const attempts = broken.received.length;
    expect(attempts).toBeGreaterThanOrEqual(9);
    expect(
      Date.parse(disabled?.disabled_at ?? '') - Date.parse(disabled?.failing_since ?? ''),
    ).toBeGreaterThanOrEqual(3 * DAY);
    await broken.close();
  });

  it('stops when its agent key is revoked', async () => {
    const mine = await subscribed();
    await revokeAgentKey(mine.agent.keyId);
    await appendFeedEvents([changeEvent(mine.businessId, 'record.created')]);
    expect(await wakeAndRun(mine.subscription.webhook_id, run())).not.toBe('caught_up');
    expect(at(mine.path)).toHaveLength(0);
    expect(await readSubscription(mine.subscription.webhook_id)).toMatchObject({
      enabled: false,
      disabled_reason: 'key_revoked',
    });
  });

  it('is refused at delivery when its address is not public, without a connection', async () => {
    const mine = await subscribed();
    const id = mine.subscription.webhook_id;
    // As if the host had started resolving to an internal address after it was registered.
    await dynamo.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...(await rawSubscription(id)), url: 'https://10.20.30.40/hook' },
      }),
    );
    await appendFeedEvents([changeEvent(mine.businessId, 'record.created')]);
    expect(await wakeAndRun(id, run())).toBe('failed');
    const [attempt] = (await listDeliveries(id, { limit: 1 }, now())).deliveries;
    expect(attempt).toMatchObject({ outcome: 'failed', status_code: null });
    expect(attempt?.error).toMatch(/^forbidden_address: /);
  });
});

describe('replay and retry', () => {
  it('deliver the same event ids again', async () => {
    const mine = await subscribed();
    const id = mine.subscription.webhook_id;
    const events = [
      changeEvent(mine.businessId, 'record.created'),
      changeEvent(mine.businessId, 'record.updated'),
    ];
    await appendFeedEvents(events);
    await wakeAndRun(id, run());
    expect(at(mine.path)).toHaveLength(2);

    const before = new Date(Date.parse(events[0]?.occurred_at ?? '') - 1000).toISOString();
    const after = new Date(Date.parse(events[1]?.occurred_at ?? '') + 1000).toISOString();
    await requestReplay(id, { from: before, to: after }, now());
    expect((await sweep(run())).get(id)).toBe('caught_up');
    expect(at(mine.path).map((delivery) => delivery.headers['webhook-id'])).toEqual([
      events[0]?.id,
      events[1]?.id,
      events[0]?.id,
      events[1]?.id,
    ]);
    const logged = (await listDeliveries(id, { limit: 10 }, now())).deliveries;
    expect(logged.slice(0, 2).map((attempt) => attempt.trigger)).toEqual(['replay', 'replay']);

    const subscription = await readSubscription(id);
    if (!subscription) throw new Error('gone');
    const manual = await redeliver(subscription, logged.at(-1)?.delivery_id ?? '', now());
    expect(manual).toMatchObject({ outcome: 'delivered', trigger: 'manual', event_id: events[0]?.id });
    expect(at(mine.path).at(-1)?.headers['webhook-id']).toBe(events[0]?.id);
  });
});

describe('a run', () => {
  it('goes on where another left off when woken while that one held the lease', async () => {
    const mine = await subscribed();
    const id = mine.subscription.webhook_id;
    await appendFeedEvents([changeEvent(mine.businessId, 'record.created')]);
    // Two runs at once: one posts, the other finds the lease taken; whatever one missed the other sees.
    const outcomes = await Promise.all([
      wakeAndRun(id, run()),
      wakeAndRun(id, run()),
      runSubscription(id, run()),
    ]);
    expect(outcomes.filter((outcome) => outcome === 'caught_up').length).toBeGreaterThanOrEqual(1);
    expect(at(mine.path)).toHaveLength(1);
  });
});

async function rawSubscription(webhookId: string): Promise<Record<string, unknown>> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: keys.webhook(webhookId), ConsistentRead: true }),
  );
  if (!Item) throw new Error(`no subscription ${webhookId}`);
  return Item;
}
