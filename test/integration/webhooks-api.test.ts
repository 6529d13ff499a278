import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAgentKey } from '#lib/auth/agent-keys.ts';
import { revokeAgentKey } from '#lib/auth/revoke-agent-key.ts';
import type { RouteDefinition } from '#lib/http/route.ts';
import { type WebhookOperation, webhookRoutes } from '#lib/routes/webhooks.ts';
import { readSubscription } from '#lib/webhooks/store.ts';
import { contractProblems } from '../support/openapi-contract.ts';

/**
 * The webhooks API (lib/routes/webhooks.ts) over HTTP against the local harness: subscriptions of
 * an agent key and only its own, their secrets shown once, the URL's checks, and the deliveries an
 * owner asks for by hand (test, retry, replay), posted to a receiver this test runs on 127.0.0.1
 * (the harness lets webhooks reach loopback over http) and verified with the Standard Webhooks
 * library a receiver would use.
 */
const BASE = '/api/v1/agent/webhooks';

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are read as loose JSON.
  body: any;
}

/** Call one operation with a key; every answer must be one the OpenAPI document describes. */
async function call(
  operation: WebhookOperation,
  path: string,
  key: string | undefined,
  json?: unknown,
): Promise<Answer> {
  const route: RouteDefinition = webhookRoutes[operation];
  const response = await fetch(`${inject('harness').baseUrl}${path}`, {
    method: route.method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  const text = await response.text();
  expect(contractProblems(route, { status: response.status, headers: response.headers, text })).toEqual([]);
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

const newKey = async (scopes: ('read' | 'write')[] = ['read']) =>
  (await createAgentKey({ name: 'webhooks-test', businesses: [randomUUID()], scopes })).key;

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on 127.0.0.1: keeps what it gets and answers `status`. */
class Receiver {
  readonly received: Received[] = [];
  status = 204;
  private server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      this.received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(this.status).end();
    });
  });

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  last(): Received {
    const last = this.received.at(-1);
    if (!last) throw new Error('the receiver got nothing');
    return last;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The headers standardwebhooks verifies, from what the receiver got. */
const signedHeaders = (received: Received) => ({
  'webhook-id': String(received.headers['webhook-id']),
  'webhook-timestamp': String(received.headers['webhook-timestamp']),
  'webhook-signature': String(received.headers['webhook-signature']),
});

function expectInvalid(answer: Answer, field: string, what: string) {
  expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBe(422);
  expect(answer.body.error.code).toBe('VALIDATION_ERROR');
  expect(
    answer.body.error.details.map((issue: { loc: unknown[] }) => issue.loc.slice(0, 2).join('.')),
    what,
  ).toContain(field);
}

let receiver: Receiver;
beforeAll(async () => {
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await receiver.stop();
});

describe('webhook subscriptions', () => {
  it('are made, listed, read, changed, paused, resumed and deleted; the secret shows only when made', async () => {
    const key = await newKey();
    const made = await call('createWebhook', BASE, key, {
      url: receiver.url,
      types: ['record.created', 'record.deleted'],
      description: 'CRM sync',
    });
    expect(made.status).toBe(201);
    const { secret, ...view } = made.body.data;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(view).toMatchObject({
      url: receiver.url,
      types: ['record.created', 'record.deleted'],
      description: 'CRM sync',
      enabled: true,
      status: 'active',
      disabled_reason: null,
      last_error: null,
    });
    const id = view.id as string;

    const listed = await call('listWebhooks', BASE, key);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([view]);
    const read = await call('getWebhook', `${BASE}/${id}`, key);
    expect(read.body.data).toEqual(view);
    // The id is a UUID, case-insensitive.
    expect((await call('getWebhook', `${BASE}/${id.toUpperCase()}`, key)).body.data).toEqual(view);
    for (const answer of [listed, read]) expect(JSON.stringify(answer.body)).not.toContain('whsec_');

    const changed = await call('updateWebhook', `${BASE}/${id}`, key, { types: null, description: null });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ id, types: null, description: null, url: receiver.url });
    expect(JSON.stringify(changed.body)).not.toContain('whsec_');

    const paused = await call('updateWebhook', `${BASE}/${id}`, key, { enabled: false });
    expect(paused.body.data).toMatchObject({ enabled: false, status: 'disabled', disabled_reason: 'paused' });
    const resumed = await call('updateWebhook', `${BASE}/${id}`, key, { enabled: true });
    expect(resumed.body.data).toMatchObject({ enabled: true, status: 'active', disabled_reason: null });

    const deleted = await call('deleteWebhook', `${BASE}/${id}`, key);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect((await call('getWebhook', `${BASE}/${id}`, key)).status).toBe(404);
    expect((await call('deleteWebhook', `${BASE}/${id}`, key)).status).toBe(404);
    expect((await call('listWebhooks', BASE, key)).body.data).toEqual([]);
  });

  it('answers 401 without a valid agent key, and 403 to a key without the read scope', async () => {
    expect((await call('listWebhooks', BASE, undefined)).status).toBe(401);
    expect((await call('createWebhook', BASE, 'agk_nope', { url: receiver.url })).status).toBe(401);

    const writeOnly = await newKey(['write']);
    expect((await call('listWebhooks', BASE, writeOnly)).status).toBe(403);
    const refused = await call('createWebhook', BASE, writeOnly, { url: receiver.url });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain("'read' scope");
  });

  it("is another key's 404 on every operation that names it, and stays as it was", async () => {
    const owner = await newKey();
    const other = await newKey(['read', 'write']);
    const made = await call('createWebhook', BASE, owner, { url: receiver.url, description: 'mine' });
    const id = made.body.data.id as string;
    const ping = await call('testWebhook', `${BASE}/${id}/test`, owner);
    const deliveryId = ping.body.data.id as string;
    const before = receiver.received.length;

    const range = { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date().toISOString() };
    const attempts: [WebhookOperation, string, unknown?][] = [
      ['getWebhook', `${BASE}/${id}`],
      ['updateWebhook', `${BASE}/${id}`, { description: 'theirs' }],
      ['deleteWebhook', `${BASE}/${id}`],
      ['rotateWebhookSecret', `${BASE}/${id}/rotate_secret`],
      ['testWebhook', `${BASE}/${id}/test`],
      ['listWebhookDeliveries', `${BASE}/${id}/deliveries`],
      ['retryWebhookDelivery', `${BASE}/${id}/deliveries/${deliveryId}/retry`],
      ['replayWebhook', `${BASE}/${id}/replay`, range],
    ];
    for (const [operation, path, body] of attempts) {
      const answer = await call(operation, path, other, body);
      expect(answer.status, operation).toBe(404);
      expect(answer.body.error.code).toBe('NOT_FOUND');
      expect(JSON.stringify(answer.body), operation).not.toContain('mine');
    }
    expect((await call('listWebhooks', BASE, other)).body.data).toEqual([]);

    expect(receiver.received.length).toBe(before);
    const after = await call('getWebhook', `${BASE}/${id}`, owner);
    expect(after.body.data).toEqual({
      ...made.body.data,
      secret: undefined,
      updated_at: after.body.data.updated_at,
    });
    expect(after.body.data.description).toBe('mine');
    const deliveries = await call('listWebhookDeliveries', `${BASE}/${id}/deliveries`, owner);
    expect(deliveries.body.data.map((attempt: { id: string }) => attempt.id)).toEqual([deliveryId]);
  });

  it('allows 10 per key: the 11th is a 409, and deleting one makes room', async () => {
    const key = await newKey();
    const ids: string[] = [];
    for (let n = 1; n <= 10; n++) {
      const made = await call('createWebhook', BASE, key, { url: `${receiver.url}/${n}` });
      expect(made.status, `webhook ${n}`).toBe(201);
      ids.push(made.body.data.id);
    }
    const eleventh = await call('createWebhook', BASE, key, { url: receiver.url });
    expect(eleventh.status).toBe(409);
    expect(eleventh.body.error.code).toBe('CONFLICT');
    expect((await call('listWebhooks', BASE, key)).body.data).toHaveLength(10);
    // Another key has its own 10.
    expect((await call('createWebhook', BASE, await newKey(), { url: receiver.url })).status).toBe(201);

    await call('deleteWebhook', `${BASE}/${ids[0]}`, key);
    expect((await call('createWebhook', BASE, key, { url: receiver.url })).status).toBe(201);
  });

  it('refuses what is not a webhook with a 422 naming the field, never a 500', async () => {
    const key = await newKey();
    const create = (body: unknown) => call('createWebhook', BASE, key, body);
    expectInvalid(await create({ url: receiver.url, secret: 'mine' }), 'body.secret', 'unknown field');
    expectInvalid(await create({}), 'body.url', 'no url');
    expectInvalid(await create({ url: 'not a url' }), 'body.url', 'not a URL');
    expectInvalid(await create({ url: 'ftp://example.com/hook' }), 'body.url', 'ftp');
    expectInvalid(await create({ url: 'https://user:pw@example.com/hook' }), 'body.url', 'credentials');
    expectInvalid(await create({ url: `https://example.com/${'a'.repeat(2048)}` }), 'body.url', 'too long');
    expectInvalid(await create({ url: 42 }), 'body.url', 'a number');
    expectInvalid(await create({ url: receiver.url, types: [] }), 'body.types', 'empty types');
    expectInvalid(
      await create({ url: receiver.url, types: ['record.exploded'] }),
      'body.types',
      'unknown type',
    );
    expectInvalid(
      await create({ url: receiver.url, types: ['record.created', 'record.created'] }),
      'body.types',
      'a type twice',
    );
    expectInvalid(
      await create({ url: receiver.url, description: 'x'.repeat(501) }),
      'body.description',
      'long',
    );
    expectInvalid(await create({ url: receiver.url, enabled: false }), 'body.enabled', 'enabled on create');

    const made = await create({ url: receiver.url });
    const id = made.body.data.id as string;
    const patch = (body: unknown) => call('updateWebhook', `${BASE}/${id}`, key, body);
    const nothing = await patch({});
    expect(nothing.status).toBe(422);
    expect(nothing.body.error.message).toContain('at least one');
    expectInvalid(await patch({ enabled: 'yes' }), 'body.enabled', 'enabled not a boolean');
    expectInvalid(await patch({ url: null }), 'body.url', 'null url');
    expectInvalid(await patch({ id: randomUUID() }), 'body.id', 'unknown field');
    expectInvalid(await call('getWebhook', `${BASE}/not-a-uuid`, key), 'path.webhook_id', 'bad id');
    expectInvalid(
      await call('retryWebhookDelivery', `${BASE}/${id}/deliveries/nope/retry`, key),
      'path.delivery_id',
      'bad delivery id',
    );
    expect((await call('getWebhook', `${BASE}/${id}`, key)).body.data.url).toBe(receiver.url);
  });

  it('refuses URLs that reach private, loopback-like, link-local or other internal addresses, at creation and on change', async () => {
    const key = await newKey();
    const internal = [
      'http://10.0.0.1/hook',
      'https://10.0.0.1/hook',
      'https://169.254.169.254/latest/meta-data/',
      'http://192.168.1.10/hook',
      'https://172.16.0.5/hook',
      'http://[::ffff:10.0.0.1]/hook',
      'http://[::ffff:a00:1]/hook',
      'http://0.0.0.0/hook',
      'http://0.0.0.0:8080/hook',
      'https://[fd00:ec2::254]/hook',
      'https://[fe80::1]/hook',
      'https://100.64.0.1/hook',
    ];
    for (const url of internal) {
      const refused = await call('createWebhook', BASE, key, { url });
      expectInvalid(refused, 'body.url', url);
    }
    // Plain http reaches loopback only (the harness's allowance); a name that does not resolve is no endpoint.
    expectInvalid(
      await call('createWebhook', BASE, key, { url: 'https://no-such-host.invalid/hook' }),
      'body.url',
      'unresolvable',
    );

    const made = await call('createWebhook', BASE, key, { url: receiver.url });
    const id = made.body.data.id as string;
    for (const url of internal.slice(0, 4)) {
      expectInvalid(
        await call('updateWebhook', `${BASE}/${id}`, key, { url }),
        'body.url',
        `change to ${url}`,
      );
    }
    expect((await call('getWebhook', `${BASE}/${id}`, key)).body.data.url).toBe(receiver.url);
    expect((await call('listWebhooks', BASE, key)).body.data).toHaveLength(1);
  });
});

describe('deliveries asked for by hand', () => {
  it('test posts a signed ping now; rotate_secret signs with both secrets; the log lists the attempts; retry re-posts the same webhook-id', async () => {
    const key = await newKey();
    const made = await call('createWebhook', BASE, key, { url: receiver.url });
    const id = made.body.data.id as string;
    const firstSecret = made.body.data.secret as string;

    receiver.status = 204;
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
    const posted = receiver.last();
    expect(posted.headers['content-type']).toBe('application/json');
    expect(posted.headers['webhook-id']).toBe(ping.body.data.event_id);
    const message = new Webhook(firstSecret).verify(posted.body, signedHeaders(posted));
    expect(message).toMatchObject({ type: 'ping', data: { webhook_id: id } });
    // Another secret does not verify it.
    const stranger = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    expect(() => new Webhook(stranger).verify(posted.body, signedHeaders(posted))).toThrow();

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
    const twice = receiver.last();
    expect(String(twice.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [firstSecret, secondSecret]) {
      expect(new Webhook(secret).verify(twice.body, signedHeaders(twice))).toMatchObject({ type: 'ping' });
    }

    // An endpoint that fails: the attempt says so, and the operation still answers 200.
    receiver.status = 500;
    const failed = await call('testWebhook', `${BASE}/${id}/test`, key);
    expect(failed.status).toBe(200);
    expect(failed.body.data).toMatchObject({ outcome: 'failed', status_code: 500, error: 'HTTP 500' });
    receiver.status = 204;

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
    const again = receiver.last();
    expect(again.headers['webhook-id']).toBe(posted.headers['webhook-id']);
    expect(new Webhook(secondSecret).verify(again.body, signedHeaders(again))).toMatchObject({
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
    const closed = await new Receiver().start();
    const url = closed.url;
    await closed.stop();
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
