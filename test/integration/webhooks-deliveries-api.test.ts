import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentKey } from '#lib/auth/agent-keys.ts';
import { revokeAgentKey } from '#lib/auth/revoke-agent-key.ts';
import { readSubscription } from '#lib/webhooks/store.ts';
import { BASE, call, expectInvalid, newKey } from '../support/webhook-api.ts';
import {
  type ReceivedDelivery,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../support/webhook-receiver.ts';

/**
 * The deliveries an owner of a webhook asks for by hand (lib/routes/webhooks.ts: test, retry,
 * replay) and what revoking its agent key does, over HTTP against the local harness, posted to a
 * receiver this test runs on 127.0.0.1 (the harness lets webhooks reach loopback over http) and
 * verified with the Standard Webhooks library a receiver would use.
 */
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  receiver.answer(204);
});
afterAll(() => receiver.close());

function lastReceived(): ReceivedDelivery {
  const last = receiver.received.at(-1);
  if (!last) throw new Error('the receiver got nothing');
  return last;
}

describe('deliveries asked for by hand', () => {
  it('test posts a signed ping now; rotate_secret signs with both secrets; the log lists the attempts; retry re-posts the same webhook-id', async () => {
    const key = await newKey();
    const made = await call('createWebhook', BASE, key, { url: receiver.url });
    const id = made.body.data.id as string;
    const firstSecret = made.body.data.secret as string;

    receiver.answer(204);
    const before = receiver.received.length;
    const ping = await call('testWebhook', `${BASE}/${id}/test`, key);
    expect(ping.status).toBe(200);
    expect(ping.body.data).toMatchObject({
      event_type: 'ping',
      trigger: 'test',
      outcome: 'delivered',
      status_code: 204,
      error: null,
      next_retry_at: null,
    });
    expect(receiver.received.length).toBe(before + 1);
    const posted = lastReceived();
    expect(posted.headers['content-type']).toBe('application/json');
    expect(posted.headers['webhook-id']).toBe(ping.body.data.event_id);
    const message = receiver.verify(posted, firstSecret);
    expect(message).toMatchObject({ type: 'ping', data: { webhook_id: id } });
    // Another secret does not verify it.
    const stranger = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    expect(() => receiver.verify(posted, stranger)).toThrow();

    // Rotated: both secrets sign for 24 hours.
    const rotated = await call('rotateWebhookSecret', `${BASE}/${id}/rotate_secret`, key);
    expect(rotated.status).toBe(200);
    const secondSecret = rotated.body.data.secret as string;
    expect(secondSecret).toMatch(/^whsec_/);
    expect(secondSecret).not.toBe(firstSecret);
    expect(rotated.body.data.id).toBe(id);
    const { secret: _shown, ...rotatedView } = rotated.body.data;
    expect((await call('getWebhook', `${BASE}/${id}`, key)).body.data).toEqual(rotatedView);
    expect(JSON.stringify((await call('listWebhooks', BASE, key)).body)).not.toContain('whsec_');

    const second = await call('testWebhook', `${BASE}/${id}/test`, key);
    expect(second.body.data.outcome).toBe('delivered');
    const twice = lastReceived();
    expect(String(twice.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [firstSecret, secondSecret]) {
      expect(receiver.verify(twice, secret)).toMatchObject({ type: 'ping' });
    }

    // An endpoint that fails: the attempt says so, and the operation still answers 200.
    receiver.answer(500);
    const failed = await call('testWebhook', `${BASE}/${id}/test`, key);
    expect(failed.status).toBe(200);
    expect(failed.body.data).toMatchObject({ outcome: 'failed', status_code: 500, error: 'HTTP 500' });
    receiver.answer(204);

    // The log, newest first, paged with the cursor.
    const log = await call('listWebhookDeliveries', `${BASE}/${id}/deliveries`, key);
    expect(log.status).toBe(200);
    expect(log.body.data.map((attempt: { id: string }) => attempt.id)).toEqual([
      failed.body.data.id,
      second.body.data.id,
      ping.body.data.id,
    ]);
    expect(log.body.data[2]).toEqual(ping.body.data);
    expect(log.body.meta.next_cursor).toBeNull();
    const firstPage = await call('listWebhookDeliveries', `${BASE}/${id}/deliveries?limit=2`, key);
    expect(firstPage.body.data).toHaveLength(2);
    const cursor = firstPage.body.meta.next_cursor as string;
    expect(typeof cursor).toBe('string');
    const secondPage = await call(
      'listWebhookDeliveries',
      `${BASE}/${id}/deliveries?limit=2&cursor=${encodeURIComponent(cursor)}`,
      key,
    );
    expect(secondPage.body.data.map((attempt: { id: string }) => attempt.id)).toEqual([ping.body.data.id]);
    expect(secondPage.body.meta.next_cursor).toBeNull();
    expectInvalid(
      await call('listWebhookDeliveries', `${BASE}/${id}/deliveries?cursor=${ping.body.data.id}`, key),
      'query.cursor',
      'a cursor this list did not give out',
    );
    for (const limit of ['0', '101', 'x']) {
      expectInvalid(
        await call('listWebhookDeliveries', `${BASE}/${id}/deliveries?limit=${limit}`, key),
        'query.limit',
        `limit ${limit}`,
      );
    }
    // A cursor of one webhook does not page another's log.
    const other = await call('createWebhook', BASE, key, { url: receiver.url });
    expectInvalid(
      await call(
        'listWebhookDeliveries',
        `${BASE}/${other.body.data.id}/deliveries?cursor=${encodeURIComponent(cursor)}`,
        key,
      ),
      'query.cursor',
      "another webhook's cursor",
    );

    // Retry: the same event id, a new attempt.
    const count = receiver.received.length;
    const retried = await call(
      'retryWebhookDelivery',
      `${BASE}/${id}/deliveries/${ping.body.data.id}/retry`,
      key,
    );
    expect(retried.status).toBe(200);
    expect(retried.body.data).toMatchObject({
      event_id: ping.body.data.event_id,
      event_type: 'ping',
      trigger: 'manual',
      outcome: 'delivered',
    });
    expect(retried.body.data.id).not.toBe(ping.body.data.id);
    expect(receiver.received.length).toBe(count + 1);
    const again = lastReceived();
    expect(again.headers['webhook-id']).toBe(posted.headers['webhook-id']);
    expect(receiver.verify(again, secondSecret)).toMatchObject({
      type: 'ping',
    });
    expect(
      (await call('retryWebhookDelivery', `${BASE}/${id}/deliveries/${randomUUID()}/retry`, key)).status,
    ).toBe(404);
    // A delivery of another webhook of the same key is not this one's.
    expect(
      (
        await call(
          'retryWebhookDelivery',
          `${BASE}/${other.body.data.id}/deliveries/${ping.body.data.id}/retry`,
          key,
        )
      ).status,
    ).toBe(404);
  });

  it('test reports an endpoint that cannot be reached as a failed attempt', async () => {
    const key = await newKey();
    const closed = await startWebhookReceiver();
    const url = closed.url;
    await closed.close();
    const made = await call('createWebhook', BASE, key, { url });
    const ping = await call('testWebhook', `${BASE}/${made.body.data.id}/test`, key);
    expect(ping.status).toBe(200);
    expect(ping.body.data).toMatchObject({ outcome: 'failed', status_code: null });
    expect(ping.body.data.error).toMatch(/network|refused/i);
  });

  it('replay accepts a range of the last 30 days (202) and refuses any other with a 422', async () => {
    const key = await newKey();
    const made = await call('createWebhook', BASE, key, { url: receiver.url });
    const path = `${BASE}/${made.body.data.id}/replay`;
    const hour = 3_600_000;
    const day = 24 * hour;
    const at = (offset: number) => new Date(Date.now() + offset).toISOString();

    const from = at(-2 * day);
    const to = at(-hour);
    const accepted = await call('replayWebhook', path, key, { from, to });
    expect(accepted.status).toBe(202);
    expect(accepted.body.data).toEqual({ replay_id: expect.any(String), from, to });
    // An offset is read as the instant it names, and answered in UTC.
    const instant = new Date(Math.floor((Date.now() - day) / 1000) * 1000);
    const inBerlinSummer = new Date(instant.getTime() + 2 * hour).toISOString().replace('.000Z', '+02:00');
    const offset = await call('replayWebhook', path, key, { from: inBerlinSummer, to });
    expect(offset.status).toBe(202);
    expect(offset.body.data.from).toBe(instant.toISOString());

    expectInvalid(
      await call('replayWebhook', path, key, { from: at(-31 * day), to }),
      'body.from',
      'too old',
    );
    expectInvalid(await call('replayWebhook', path, key, { from, to: at(day) }), 'body.to', 'future');
    expectInvalid(await call('replayWebhook', path, key, { from: to, to: from }), 'body.to', 'reversed');
    expectInvalid(await call('replayWebhook', path, key, { from, to: from }), 'body.to', 'empty');
    expectInvalid(
      await call('replayWebhook', path, key, { from: 'yesterday', to }),
      'body.from',
      'not a time',
    );
    expectInvalid(await call('replayWebhook', path, key, { from }), 'body.to', 'no to');
    expectInvalid(
      await call('replayWebhook', path, key, { from, to, types: ['x'] }),
      'body.types',
      'unknown',
    );
    expect((await call('replayWebhook', `${BASE}/${randomUUID()}/replay`, key, { from, to })).status).toBe(
      404,
    );
  });
});

describe('revoking an agent key', () => {
  it('disables its webhooks (key_revoked), and the key is refused', async () => {
    const { key, record } = await createAgentKey({
      name: 'revoked-webhooks',
      businesses: [randomUUID()],
      scopes: ['read'],
    });
    const ids: string[] = [];
    for (const n of [1, 2]) {
      ids.push((await call('createWebhook', BASE, key, { url: `${receiver.url}/${n}` })).body.data.id);
    }
    await call('updateWebhook', `${BASE}/${ids[1]}`, key, { enabled: false });
    const otherKey = await newKey();
    const untouched = (await call('createWebhook', BASE, otherKey, { url: receiver.url })).body.data.id;

    await revokeAgentKey(record.key_id);

    for (const id of ids) {
      const subscription = await readSubscription(id);
      expect(subscription?.enabled, id).toBe(false);
    }
    expect((await readSubscription(ids[0] as string))?.disabled_reason).toBe('key_revoked');
    expect((await readSubscription(untouched))?.enabled).toBe(true);
    expect((await call('listWebhooks', BASE, key)).status).toBe(401);
    expect((await call('getWebhook', `${BASE}/${untouched}`, otherKey)).body.data.status).toBe('active');
  });
});
