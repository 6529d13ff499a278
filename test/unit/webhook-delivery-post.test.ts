import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkFetchTarget, type SafeFetchError } from '#lib/net/safe-fetch.ts';
import { JITTER, nextAttemptAt, RETRY_DELAYS_MS } from '#lib/webhooks/backoff.ts';
import { checkEndpointUrl } from '#lib/webhooks/endpoint.ts';
import { postMessage, RESPONSE_READ_BYTES } from '#lib/webhooks/post.ts';
import { newSigningSecret, signedHeaders } from '#lib/webhooks/secrets.ts';

/**
 * A webhook's POST (lib/webhooks/post.ts) through the SSRF guard, its signature, and the retry
 * schedule. DNS is the one port replaced: `rebinding.example` answers a public address to the
 * first lookup and an internal one after, as a hostile DNS server would between registration and
 * delivery; every other name resolves for real.
 */
const dnsAnswers = vi.hoisted(() => ({ rebinding: ['93.184.216.34', '10.0.0.5'] as string[] }));
vi.mock('node:dns/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:dns/promises')>();
  const lookup = (async (host: string, options: unknown) => {
    if (host === 'rebinding.example') {
      const address = dnsAnswers.rebinding.shift() ?? '10.0.0.5';
      return [{ address, family: 4 }];
    }
    return (actual.lookup as (h: string, o: unknown) => unknown)(host, options);
  }) as typeof actual.lookup;
  return { ...actual, lookup, default: { ...actual, lookup } };
});

const allowBefore = process.env.WEBHOOKS_ALLOW_LOOPBACK_HTTP;
afterEach(() => {
  if (allowBefore === undefined) delete process.env.WEBHOOKS_ALLOW_LOOPBACK_HTTP;
  else process.env.WEBHOOKS_ALLOW_LOOPBACK_HTTP = allowBefore;
});

let server: Server;
let base: string;
const requests: { method: string; headers: Record<string, unknown>; body: string }[] = [];
let reply: { status: number; bytes: number } = { status: 200, bytes: 2 };
beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      requests.push({ method: request.method ?? '', headers: request.headers, body });
      response.statusCode = reply.status;
      response.end(Buffer.alloc(reply.bytes, 'x'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

const message = {
  id: 'evt_1',
  type: 'record.updated',
  timestamp: '2026-11-29T00:00:00.000Z',
  data: { a: 1 },
};

describe('where a webhook may point', () => {
  it.each([
    ['http to a loopback receiver', 'http://127.0.0.1:9/hook', true],
    ['http to another loopback address', 'http://127.0.0.2:9/hook', true],
    ['http to a private address', 'http://10.0.0.1/hook', false],
    ['https to the metadata address', 'https://169.254.169.254/latest', false],
    ['https to a private range', 'https://192.168.1.10/', false],
    ['an IPv4-mapped private address', 'https://[::ffff:10.0.0.1]/', false],
    ['the unspecified address', 'http://0.0.0.0:9/', false],
    ['a scheme other than http(s)', 'ftp://127.0.0.1/', false],
  ])('locally (loopback allowed): %s', async (_case, url, allowed) => {
    process.env.WEBHOOKS_ALLOW_LOOPBACK_HTTP = 'true';
    const checked = checkEndpointUrl(url);
    if (allowed) await expect(checked).resolves.toBeUndefined();
    else
      await expect(checked).rejects.toMatchObject({ statusCode: 422, details: [{ loc: ['body', 'url'] }] });
  });

  it('in AWS (no loopback allowance) refuses loopback and plain http', async () => {
    delete process.env.WEBHOOKS_ALLOW_LOOPBACK_HTTP;
    await expect(checkEndpointUrl('http://127.0.0.1:9/hook')).rejects.toMatchObject({ statusCode: 422 });
    await expect(checkEndpointUrl('https://127.0.0.1:9/hook')).rejects.toMatchObject({ statusCode: 422 });
    await expect(checkEndpointUrl('https://[::1]/hook')).rejects.toMatchObject({ statusCode: 422 });
  });

  it('refuses plain http to a public host even where loopback is allowed', async () => {
    const refused = await checkFetchTarget('http://93.184.216.34/', { allowLoopback: true }).catch(
      (error: SafeFetchError) => error.reason,
    );
    expect(refused).toBe('invalid_url');
  });

  it('checks the address again at delivery: a host that rebinds to a private address after registration gets no request', async () => {
    dnsAnswers.rebinding = ['93.184.216.34', '10.0.0.5'];
    await expect(checkEndpointUrl('https://rebinding.example/hook')).resolves.toBeUndefined();
    const sent = requests.length;
    const result = await postMessage('https://rebinding.example/hook', message, [newSigningSecret()]);
    expect(result).toMatchObject({ ok: false, status: null });
    expect(result.error).toMatch(/^forbidden_address: rebinding\.example resolves to 10\.0\.0\.5/);
    expect(requests).toHaveLength(sent);
  });
});

describe('a delivery', () => {
  it('posts the message signed with every secret given, each verifying with standardwebhooks', async () => {
    process.env.WEBHOOKS_ALLOW_LOOPBACK_HTTP = 'true';
    const [current, previous] = [newSigningSecret(), newSigningSecret()];
    reply = { status: 204, bytes: 0 };
    const result = await postMessage(`${base}/hook`, message, [current, previous]);
    expect(result).toMatchObject({ ok: true, status: 204, error: null });
    const request = requests.at(-1);
    if (!request) throw new Error('no request');
    expect(request.method).toBe('POST');
    expect(JSON.parse(request.body)).toEqual({
      type: message.type,
      timestamp: message.timestamp,
      data: message.data,
    });
    expect(request.headers['webhook-id']).toBe('evt_1');
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    const headers = {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    };
    for (const secret of [current, previous]) {
      expect(new Webhook(secret as string).verify(request.body, headers)).toEqual(JSON.parse(request.body));
    }
    expect(() => new Webhook(newSigningSecret()).verify(request.body, headers)).toThrow();
    // No header of ours carries a secret: only the signature.
    for (const value of Object.values(request.headers)) {
      expect(String(value)).not.toContain(String(current).slice(6));
    }
  });

  it('reads at most 64 KB of the answer and still takes its 2xx', async () => {
    process.env.WEBHOOKS_ALLOW_LOOPBACK_HTTP = 'true';
    reply = { status: 200, bytes: 4 * RESPONSE_READ_BYTES };
    expect(await postMessage(`${base}/hook`, message, [newSigningSecret()])).toMatchObject({
      ok: true,
      status: 200,
    });
  });

  it.each([
    [500, 'HTTP 500'],
    [302, null],
    [404, 'HTTP 404'],
  ])('takes %s as a failure', async (status, error) => {
    process.env.WEBHOOKS_ALLOW_LOOPBACK_HTTP = 'true';
    reply = { status, bytes: 2 };
    const result = await postMessage(`${base}/hook`, message, [newSigningSecret()]);
    expect(result.ok).toBe(false);
    if (error) expect(result.error).toBe(error);
    else expect(result.error).toMatch(/^redirect: /);
  });

  it('signs the id, the timestamp in seconds and the body', () => {
    const secret = newSigningSecret();
    const at = new Date('2026-11-29T10:00:00.500Z');
    const headers = signedHeaders({ id: 'evt_2', body: '{"x":1}' }, [secret], at);
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(at.getTime() / 1000)));
    expect(headers['webhook-signature']).toBe(new Webhook(secret).sign('evt_2', at, '{"x":1}'));
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });
});

describe('the retry schedule', () => {
  const now = new Date('2026-11-29T00:00:00Z');
  it('follows the delays, the last one repeating, without jitter at the midpoint', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 8, 9, 12].map(
      (failures) => nextAttemptAt(failures, now, () => 0.5).getTime() - now.getTime(),
    );
    expect(delays).toEqual([...RETRY_DELAYS_MS, RETRY_DELAYS_MS.at(-1), RETRY_DELAYS_MS.at(-1)]);
    const firstDay = RETRY_DELAYS_MS.slice(0, 7).reduce((sum, delay) => sum + delay, 0);
    expect(firstDay).toBeLessThan(24 * 3600_000);
    expect(firstDay + (RETRY_DELAYS_MS.at(-1) ?? 0)).toBeGreaterThan(24 * 3600_000);
  });

  it('spreads each delay by the jitter', () => {
    const low = nextAttemptAt(3, now, () => 0).getTime() - now.getTime();
    const high = nextAttemptAt(3, now, () => 0.999999).getTime() - now.getTime();
    const base = RETRY_DELAYS_MS[2] ?? 0;
    expect(low).toBe(Math.round(base * (1 - JITTER)));
    expect(high).toBeGreaterThan(base * (1 + JITTER) - 1000);
    expect(high).toBeLessThan(base * (1 + JITTER));
  });
});
