import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentKey } from '#lib/auth/agent-keys.ts';
import type { AgentPrincipal } from '#lib/auth/principal.ts';
import { keys } from '#lib/db/keys.ts';
import { createWebhook, readSubscription } from '#lib/webhooks/store.ts';
import { createRecordVia } from '../support/agents.ts';
import { api } from '../support/api.ts';
import { feedItemsOf } from '../support/feed-items.ts';
import { harnessTable } from '../support/harness-table.ts';
import { arrangeTenant } from '../support/tenants.ts';

/**
 * Webhooks through the real path, locally as on AWS: a write over HTTP, DynamoDB Local's stream,
 * the publisher, the local bus, the rule on it to the local queue, DeliverWebhooks invoked by the
 * queue's event source mapping, a signed POST to a receiver on 127.0.0.1; and SweepWebhooks, run
 * by the schedule (here at once, through the dev console), retrying a failed delivery.
 */

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

/** A receiver on 127.0.0.1 that answers each POST with the next status of `statuses` (then 204). */
async function receiver(statuses: number[] = []) {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(statuses.shift() ?? 204).end();
    });
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { received, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` };
}

async function until<T>(what: string, read: () => Promise<T | undefined> | T | undefined, ms = 25_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A business, an agent key of it, and a subscription of that key (the route's own work, done in process). */
async function subscribed(url: string) {
  const tenant = await arrangeTenant();
  const { key, record } = await createAgentKey({
    name: 'webhooks',
    businesses: [tenant.businessId],
    scopes: ['read', 'write'],
  });
  const agent: AgentPrincipal = {
    kind: 'agent',
    keyId: record.key_id,
    name: record.name,
    businesses: [tenant.businessId],
    scopes: ['read', 'write'],
  };
  const { subscription, secret } = await createWebhook(agent, { url });
  return { businessId: tenant.businessId, key, webhookId: subscription.webhook_id, secret };
}

/** The feed's event of a record. */
const feedEventOf = async (businessId: string, recordId: string) =>
  (await feedItemsOf(businessId)).find((item) => item.event.record_id === recordId)?.event;

describe('webhooks on the local stack', () => {
  it('posts a write’s event to the receiver, signed, with the feed’s event id as webhook-id', async () => {
    const hook = await receiver();
    const { businessId, key, secret } = await subscribed(hook.url);

    const faq = await createRecordVia({ businessId, key }, 'faq');
    const [post] = await until('the delivery', () => (hook.received.length > 0 ? hook.received : undefined));
    const event = await until('the feed event', () => feedEventOf(businessId, faq.id));

    const payload = new Webhook(secret).verify(post?.body ?? '', post?.headers as Record<string, string>);
    expect(post?.headers['webhook-id']).toBe(event.id);
    expect(payload).toEqual({ type: 'record.created', timestamp: event.occurred_at, data: event });
    expect(() =>
      new Webhook(secret).verify(`${post?.body} `, post?.headers as Record<string, string>),
    ).toThrow();
  });

  it('retries a failed delivery at the sweep, and the dev console lists both attempts', async () => {
    const hook = await receiver([500]);
    const { businessId, key, webhookId, secret } = await subscribed(hook.url);

    const faq = await createRecordVia({ businessId, key }, 'faq');
    await until('the failed attempt', async () => {
      const subscription = await readSubscription(webhookId);
      return subscription?.failures === 1 && subscription.lease_owner === undefined
        ? subscription
        : undefined;
    });
    expect(hook.received).toHaveLength(1);

    // Its retry is due in about a minute: make it due now, then run the sweep as the schedule would.
    const { db, tableName } = harnessTable();
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.webhook(webhookId),
        UpdateExpression: 'SET next_attempt_at = :now',
        ExpressionAttributeValues: { ':now': new Date(Date.now() - 1000).toISOString() },
      }),
    );
    const run = await api('POST', '/console/dev/schedules/run', { json: { function: 'SweepWebhooks' } });
    expect(run.status).toBe(200);
    expect(run.body.runs).toEqual([
      expect.objectContaining({
        functionName: 'SweepWebhooks',
        outcome: expect.objectContaining({ returned: true }),
      }),
    ]);

    await until('the retry', () => (hook.received.length >= 2 ? hook.received : undefined));
    const event = await until('the feed event', () => feedEventOf(businessId, faq.id));
    expect(hook.received.map((post) => post.headers['webhook-id'])).toEqual([event.id, event.id]);
    new Webhook(secret).verify(
      hook.received[1]?.body ?? '',
      hook.received[1]?.headers as Record<string, string>,
    );
    expect((await readSubscription(webhookId))?.failures).toBe(0);

    const page = await api('GET', '/console/dev/webhooks.json');
    expect(page.status).toBe(200);
    const attempts = page.body.deliveries.filter(
      (attempt: { webhook_id: string }) => attempt.webhook_id === webhookId,
    );
    expect(attempts).toEqual([
      expect.objectContaining({
        event_id: event.id,
        trigger: 'retry',
        outcome: 'delivered',
        status_code: 204,
      }),
      expect.objectContaining({ event_id: event.id, trigger: 'event', outcome: 'failed', status_code: 500 }),
    ]);
    expect(page.body.queues).toContainEqual(
      expect.objectContaining({ id: expect.stringContaining('WebhooksEvents'), visible: 0 }),
    );
    const html = await api('GET', '/console/dev/webhooks');
    expect(html.status).toBe(200);
    expect(html.body).toContain(event.id);
  });

  it('answers a schedule run request only as JSON, for a function a schedule invokes', async () => {
    expect((await api('GET', '/console/dev/schedules/run')).status).toBe(405);
    expect(
      (
        await api('POST', '/console/dev/schedules/run', {
          raw: 'function=SweepWebhooks',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        })
      ).status,
    ).toBe(400);
    expect(
      (await api('POST', '/console/dev/schedules/run', { json: { function: 'DeliverWebhooks' } })).status,
    ).toBe(404);
  });
});
