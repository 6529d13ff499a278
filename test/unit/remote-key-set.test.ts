import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errors, exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { isJwksUnreachable } from '#lib/auth/jwks-unreachable.ts';
import { remoteKeySet } from '#lib/auth/remote-key-set.ts';

/**
 * The key set the console and assistant tokens are verified against, fetched over node:http
 * (docs/cold-starts.md): it verifies, fetches once, refetches for an unknown key
 * (rotation), and tells an unreachable or silent key server (a 503) from a bad answer (the token
 * cannot be verified). Given a seed (the set a deployment fetched), it starts without a request.
 */
let server: Server;
let base: string;
let requests = 0;
type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
type Key = { kid: string; jwk: object; privateKey: PrivateKey };
let first: Key;
let keys: Key[] = [];

const newKey = async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { kid: randomUUID(), jwk: await exportJWK(publicKey), privateKey };
};
const sign = (key: { kid: string; privateKey: PrivateKey }) =>
  new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: key.kid })
    .setExpirationTime('5m')
    .sign(key.privateKey);

beforeAll(async () => {
  first = await newKey();
  keys = [first];
  server = createServer((request, response) => {
    requests++;
    if (request.url === '/silent') return;
    if (request.url === '/missing') return void response.writeHead(404).end();
    const body = { keys: keys.map(({ kid, jwk }) => ({ ...jwk, kid, alg: 'ES256', use: 'sig' })) };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('remote key set', () => {
  it('verifies with a fetched key, fetches once, and refetches for a key it does not know', async () => {
    const keySet = remoteKeySet(new URL(`${base}/jwks`), { timeoutMs: 2_000, cooldownMs: 0 });
    const before = requests;
    await jwtVerify(await sign(first), keySet);
    await jwtVerify(await sign(first), keySet);
    expect(requests - before).toBe(1);

    const rotated = await newKey();
    keys.push(rotated);
    await jwtVerify(await sign(rotated), keySet);
    expect(requests - before).toBe(2);
  });

  it('does not refetch for an unknown key within the cooldown', async () => {
    const keySet = remoteKeySet(new URL(`${base}/jwks`), { timeoutMs: 2_000, cooldownMs: 60_000 });
    await jwtVerify(await sign(first), keySet);
    const before = requests;
    const stranger = await newKey();
    await expect(jwtVerify(await sign(stranger), keySet)).rejects.toBeInstanceOf(errors.JWKSNoMatchingKey);
    expect(requests).toBe(before);
  });

  it('reports an unreachable or silent key server as unreachable, and a bad answer as a JOSE error', async () => {
    const token = await sign(first);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const refused = await jwtVerify(
      token,
      remoteKeySet(new URL(`http://127.0.0.1:${closedPort}/jwks`), { timeoutMs: 2_000, cooldownMs: 0 }),
    ).catch((error: unknown) => error);
    const silent = await jwtVerify(
      token,
      remoteKeySet(new URL(`${base}/silent`), { timeoutMs: 200, cooldownMs: 0 }),
    ).catch((error: unknown) => error);
    const missing = await jwtVerify(
      token,
      remoteKeySet(new URL(`${base}/missing`), { timeoutMs: 2_000, cooldownMs: 0 }),
    ).catch((error: unknown) => error);

    expect(isJwksUnreachable(refused)).toBe(true);
    expect(silent).toBeInstanceOf(errors.JWKSTimeout);
    expect(isJwksUnreachable(silent)).toBe(true);
    expect(missing).toBeInstanceOf(errors.JOSEError);
    expect(isJwksUnreachable(missing)).toBe(false);
  });
});

describe('remote key set given a seed', () => {
  const seedOf = (...seeded: Key[]) => ({
    keys: seeded.map(({ kid, jwk }) => ({ ...jwk, kid, alg: 'ES256', use: 'sig' })),
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('verifies a key of the seed without a request', async () => {
    const keySet = remoteKeySet(new URL(`${base}/jwks`), {
      timeoutMs: 2_000,
      cooldownMs: 60_000,
      seed: seedOf(first),
    });
    const before = requests;
    await jwtVerify(await sign(first), keySet);
    await jwtVerify(await sign(first), keySet);
    expect(requests).toBe(before);
  });

  it('fetches once for a key the seed lacks, at once (the cooldown counts from fetches), then not again within the cooldown', async () => {
    const rotated = await newKey();
    keys.push(rotated);
    const keySet = remoteKeySet(new URL(`${base}/jwks`), {
      timeoutMs: 2_000,
      cooldownMs: 60_000,
      seed: seedOf(first),
    });
    const before = requests;
    await jwtVerify(await sign(rotated), keySet);
    await jwtVerify(await sign(rotated), keySet);
    await jwtVerify(await sign(first), keySet);
    expect(requests - before).toBe(1);

    const stranger = await newKey();
    await expect(jwtVerify(await sign(stranger), keySet)).rejects.toBeInstanceOf(errors.JWKSNoMatchingKey);
    expect(requests - before).toBe(1);
  });

  it('takes an empty seed for none: the set is fetched on first use', async () => {
    const keySet = remoteKeySet(new URL(`${base}/jwks`), {
      timeoutMs: 2_000,
      cooldownMs: 60_000,
      seed: { keys: [] },
    });
    const before = requests;
    await jwtVerify(await sign(first), keySet);
    await jwtVerify(await sign(first), keySet);
    expect(requests - before).toBe(1);
  });

  it('fetches the set again once the seed is maxAge old', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const keySet = remoteKeySet(new URL(`${base}/jwks`), {
      timeoutMs: 2_000,
      cooldownMs: 60_000,
      maxAgeMs: 600_000,
      seed: seedOf(first),
    });
    const before = requests;
    vi.setSystemTime(Date.now() + 599_000);
    await jwtVerify(await sign(first), keySet);
    expect(requests).toBe(before);

    vi.setSystemTime(Date.now() + 2_000);
    await jwtVerify(await sign(first), keySet);
    await jwtVerify(await sign(first), keySet);
    expect(requests - before).toBe(1);
  });
});
