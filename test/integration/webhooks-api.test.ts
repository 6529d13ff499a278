import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookOperation } from '#lib/routes/webhooks.ts';
import { BASE, call, expectInvalid, newKey } from '../support/webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * The webhooks API (lib/routes/webhooks.ts) over HTTP against the local harness: subscriptions of
 * an agent key and only its own, their secrets shown once, and the URL's checks. The deliveries an
 * owner asks for by hand (test, retry, replay) are in webhooks-deliveries-api.test.ts.
 */
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  receiver.answer(204);
});
afterAll(() => receiver.close());

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
