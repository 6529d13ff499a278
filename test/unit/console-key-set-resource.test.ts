import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_KEY_SET_CHARS } from '#lib/auth/deployed-key-set.ts';
import { buildBundle } from '../../bench/cold-start.ts';
import { handler } from '../../functions/deploy/console-key-set.ts';

/**
 * The custom resource that fetches the user pool's key set at deployment (infra/console-key-set.ts),
 * against a key server over real HTTP: it answers the set trimmed to its public members, and
 * `{"keys":[]}` (never a failed deployment) when the server fails, cannot be reached, answers
 * something else or a set too large for the functions' environment.
 */
let server: Server;
let base: string;
const requested: string[] = [];
let rsaKey: Record<string, unknown>;
let ecKey: Record<string, unknown>;

beforeAll(async () => {
  const rsa = await generateKeyPair('RS256', { extractable: true });
  const ec = await generateKeyPair('ES256', { extractable: true });
  rsaKey = { ...(await exportJWK(rsa.publicKey)), kid: randomUUID(), alg: 'RS256', use: 'sig' };
  ecKey = { ...(await exportJWK(ec.publicKey)), kid: randomUUID(), alg: 'ES256', use: 'sig' };
  // What a careless issuer might publish beside the public members: a private member, a chain.
  const published = {
    keys: [
      { ...rsaKey, x5c: ['MIIB'.repeat(50)], x5t: 'thumb', key_ops: ['verify'] },
      { ...(await exportJWK(ec.privateKey)), kid: ecKey.kid, alg: 'ES256', use: 'sig' },
    ],
  };
  const many = { keys: Array.from({ length: 8 }, () => rsaKey) };
  server = createServer((request, response) => {
    requested.push(request.url ?? '');
    const json = (body: unknown) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.url === '/pool/.well-known/jwks.json') return json(published);
    if (request.url === '/large/.well-known/jwks.json') return json(many);
    if (request.url === '/other/.well-known/jwks.json') return json({ issuer: 'not a key set' });
    response.writeHead(500).end('internal error');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const event = (
  requestType: 'Create' | 'Update' | 'Delete',
  jwksUrl: string,
): CloudFormationCustomResourceEvent =>
  ({
    RequestType: requestType,
    ServiceToken: 'arn:aws:lambda:eu-west-1:123456789012:function:provider',
    ResponseURL: 'https://cloudformation-custom-resource-response.example/',
    StackId: 'arn:aws:cloudformation:eu-west-1:123456789012:stack/BusinessPlatform-dev-Stateful/1',
    RequestId: randomUUID(),
    LogicalResourceId: 'ConsoleKeySet',
    ResourceType: 'Custom::ConsoleKeySet',
    ResourceProperties: { ServiceToken: 'arn:aws:lambda:…', JwksUrl: jwksUrl },
    ...(requestType === 'Create'
      ? {}
      : { PhysicalResourceId: jwksUrl, OldResourceProperties: { JwksUrl: jwksUrl } }),
  }) as CloudFormationCustomResourceEvent;

describe('console key set custom resource', () => {
  it('answers the key set with only the public members of each key, on Create and Update', async () => {
    const url = `${base}/pool/.well-known/jwks.json`;
    for (const type of ['Create', 'Update'] as const) {
      const answer = await handler(event(type, url));

      expect(answer.PhysicalResourceId).toBe(url);
      expect(JSON.parse(answer.Data?.KeySet ?? '')).toEqual({ keys: [rsaKey, ecKey] });
    }
  });

  it.each([
    ['the key server fails', '/failing/.well-known/jwks.json'],
    ['the answer is not a key set', '/other/.well-known/jwks.json'],
    [`the set is over ${MAX_KEY_SET_CHARS} characters`, '/large/.well-known/jwks.json'],
  ])('answers {"keys":[]} when %s', async (_, path) => {
    const answer = await handler(event('Create', `${base}${path}`));

    expect(answer.Data?.KeySet).toBe('{"keys":[]}');
    expect(requested).toContain(path);
  });

  it('answers {"keys":[]} when the key server cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const answer = await handler(event('Create', `http://127.0.0.1:${port}/.well-known/jwks.json`));

    expect(answer.Data?.KeySet).toBe('{"keys":[]}');
  });

  it('does nothing on Delete', async () => {
    const before = requested.length;
    const url = `${base}/pool/.well-known/jwks.json`;

    expect(await handler(event('Delete', url))).toEqual({ PhysicalResourceId: url });
    expect(requested).toHaveLength(before);
  });
});

describe('the custom resource as deployed', () => {
  it('bundles as CDK bundles it, imports and answers the key set', { timeout: 60_000 }, async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'bps-key-set-'));
    try {
      const { file } = await buildBundle('functions/deploy/console-key-set.ts', outDir);
      const bundled = (await import(pathToFileURL(file).href)) as { handler: typeof handler };
      const answer = await bundled.handler(event('Create', `${base}/pool/.well-known/jwks.json`));

      expect(JSON.parse(answer.Data?.KeySet ?? '')).toEqual({ keys: [rsaKey, ecKey] });
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  });
});
