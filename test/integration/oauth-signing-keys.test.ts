import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type HarnessProcess, startHarnessProcess } from '../../infra/local/harness-process.ts';
import { api } from '../support/api.ts';
import { checkIamReport } from '../support/iam-report.ts';
import { connectAssistant } from '../support/mcp-session.ts';

/**
 * Resource servers (edits API, tool server) take access-token keys from the published-keys item
 * inside the account, never from the public, throttled `/oauth/jwks` route. On a stack of this
 * file's own, because a rotation changes the one key schedule every test of a stack shares. The
 * in-process tests load lib/ against that stack's DynamoDB Local, each with a fresh module graph:
 * a cold container with no keys yet.
 */
let stack: HarnessProcess;
let owner: string;

beforeAll(async () => {
  stack = await startHarnessProcess();
  Object.assign(process.env, stack.info.env, { POWERTOOLS_LOG_LEVEL: 'SILENT' });
  owner = stack.info.credentials.businesses[0]?.tokens.owner as string;
});
afterAll(async () => {
  if (stack) checkIamReport(await stack.stop());
});

/** A cold container's lib/: the token check and the DynamoDB client it reads through. */
async function coldContainer() {
  vi.resetModules();
  const [{ verifyAssistantToken }, { dynamoClient }, settings, signing] = await Promise.all([
    import('#lib/auth/assistant-token.ts'),
    import('#lib/db/client.ts'),
    import('#lib/oauth/settings.ts'),
    import('#lib/oauth/signing-key.ts'),
  ]);
  const resource = `${settings.issuer()}/mcp`;
  const verify = (token: string) =>
    verifyAssistantToken(token, resource, settings.resourceChallenge(resource));
  return { verify, dynamoClient, signAccessToken: signing.signAccessToken, resource };
}

/**
 * AWS's answer to a BatchGetItem whose published-keys item it could not read under load: that key
 * handed back in UnprocessedKeys (what DynamoDB does when a partition is throttled), every other
 * key read as usual. DynamoDB Local never throttles, so the answer is injected here.
 */
function answerPublishedKeysUnprocessed(client: DynamoDBClient) {
  const seen: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'BatchGetItemCommand') return next(args);
      const input = args.input as { RequestItems: Record<string, { Keys: { pk: string; sk: string }[] }> };
      const [table, request] = Object.entries(input.RequestItems)[0] ?? [];
      if (!table || !request) return next(args);
      const isKeysItem = (key: { pk: string }) => key.pk === 'OAUTH_KEYS';
      seen.push(...request.Keys.map((key) => key.pk));
      const result = await next({
        ...args,
        input: {
          ...input,
          RequestItems: { [table]: { ...request, Keys: request.Keys.filter((key) => !isKeysItem(key)) } },
        },
      });
      (result.output as { UnprocessedKeys?: unknown }).UnprocessedKeys = {
        [table]: { Keys: request.Keys.filter(isKeysItem) },
      };
      return result;
    },
    { step: 'initialize', name: 'answerPublishedKeysUnprocessed' },
  );
  return { batchReads: () => seen };
}

/** A token with our issuer, audience and a real grant, signed by a key nobody published. */
async function tokenWithUnknownKey(like: string) {
  const claims = decodeJwt(like);
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return new SignJWT({ client_id: claims.client_id, scope: claims.scope, gid: claims.gid })
    .setProtectedHeader({ alg: 'ES256', kid: 'not-published', typ: 'at+jwt' })
    .setIssuer(String(claims.iss))
    .setAudience(String(claims.aud))
    .setSubject(String(claims.sub))
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(privateKey)
    .then((token) => ({ token, jwk }));
}

describe('resource servers read the token keys inside the account', () => {
  it('verifies a valid token while the issuer’s public JWKS route answers only 429', async () => {
    // Prepare: the issuer's public routes behind a front door that throttles every request, as
    // API Gateway does at 5 rps; a real grant, and a token for it signed with the real key.
    const { provider } = await connectAssistant({ baseUrl: stack.info.baseUrl, userToken: owner });
    const grant = decodeJwt(provider.current.access_token);
    let frontDoorRequests = 0;
    const frontDoor: Server = createServer((_request, response) => {
      frontDoorRequests += 1;
      response.writeHead(429, { 'retry-after': '1' }).end('{"message":"Too Many Requests"}');
    });
    frontDoor.listen(0, '127.0.0.1');
    await once(frontDoor, 'listening');
    const publicUrl = `http://127.0.0.1:${(frontDoor.address() as AddressInfo).port}`;
    const stackIssuer = process.env.OAUTH_ISSUER;
    process.env.OAUTH_ISSUER = publicUrl;
    try {
      const container = await coldContainer();
      const token = await container.signAccessToken(
        { client_id: grant.client_id, scope: grant.scope, gid: grant.gid },
        {
          issuer: publicUrl,
          audience: container.resource,
          subject: String(grant.sub),
          expiresInSeconds: 300,
        },
      );

      // Act
      const principal = await container.verify(token);

      // Assess: verified, and nothing ever asked the public route.
      expect(principal).toMatchObject({ kind: 'assistant', grantId: grant.gid, userId: grant.sub });
      expect(frontDoorRequests).toBe(0);
    } finally {
      process.env.OAUTH_ISSUER = stackIssuer;
      frontDoor.close();
    }
  });

  it('answers 503 with retry-after, not 401, when a cold container cannot read the key item', async () => {
    const { provider } = await connectAssistant({ baseUrl: stack.info.baseUrl, userToken: owner });
    const container = await coldContainer();
    const injected = answerPublishedKeysUnprocessed(container.dynamoClient);

    const refused = await container.verify(provider.current.access_token).catch((error: unknown) => error);

    expect(refused).toMatchObject({ statusCode: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(Number((refused as { headers: Record<string, string> }).headers['retry-after'])).toBeGreaterThan(
      0,
    );
    // The keys were asked for with the grant, in one call.
    expect(injected.batchReads()).toEqual([expect.stringMatching(/^OAUTH_GRANT#/), 'OAUTH_KEYS']);
  });

  it('keeps the last good keys when a re-read for an unknown kid fails', async () => {
    const { provider } = await connectAssistant({ baseUrl: stack.info.baseUrl, userToken: owner });
    const valid = provider.current.access_token;
    const container = await coldContainer();
    await expect(container.verify(valid)).resolves.toMatchObject({ kind: 'assistant' });
    const injected = answerPublishedKeysUnprocessed(container.dynamoClient);
    const { token: unknownKid } = await tokenWithUnknownKey(valid);

    const unknown = await container.verify(unknownKid).catch((error: unknown) => error);
    const again = await container.verify(valid);

    // The unknown kid could not be checked against fresh keys: 503. The known one still verifies.
    expect(unknown).toMatchObject({ statusCode: 503 });
    expect(again).toMatchObject({ kind: 'assistant' });
    expect(injected.batchReads().filter((pk) => pk === 'OAUTH_KEYS')).toHaveLength(1);
  });
});

describe('rotating the signing key', () => {
  it('keeps tokens of the old key valid and verifies the new key’s tokens after a re-read', async () => {
    // Prepare: a connected assistant whose tool server container holds the current keys.
    const { client, provider } = await connectAssistant({
      baseUrl: stack.info.baseUrl,
      userToken: owner,
      offlineAccess: true,
    });
    const old = provider.current;
    const listBusinesses = async () =>
      (await client.callTool({ name: 'list_businesses', arguments: {} })) as CallToolResult;
    expect((await listBusinesses()).isError).toBeFalsy();
    const oldKid = decodeProtectedHeader(old.access_token).kid;

    // Act: rotate with no lead (nothing else caches this stack's keys), then refresh the token.
    vi.resetModules();
    const { rotateSigningKey } = await import('#lib/oauth/key-rotation.ts');
    const rotation = await rotateSigningKey({ leadSeconds: 0 });
    const refreshed = await fetch(`${stack.info.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: old.refresh_token as string,
        client_id: provider.clientInformation()?.client_id as string,
      }),
    }).then((response) => response.json() as Promise<typeof old>);

    // Assess: the new token names the new key, and the tool server (which had only the old key)
    // verifies it; the old token still works; the public route publishes both.
    expect(decodeProtectedHeader(refreshed.access_token).kid).toBe(rotation.kid);
    expect(rotation.kid).not.toBe(oldKid);
    provider.saveTokens(refreshed);
    expect((await listBusinesses()).isError).toBeFalsy();
    provider.saveTokens(old);
    expect((await listBusinesses()).isError).toBeFalsy();
    const jwks = await api('GET', '/oauth/jwks', { baseUrl: stack.info.baseUrl });
    expect(jwks.body.keys.map((key: { kid: string }) => key.kid).sort()).toEqual(
      [oldKid, rotation.kid].sort(),
    );
    expect(jwks.body.keys.every((key: Record<string, unknown>) => key.d === undefined)).toBe(true);
    const retiring = rotation.schedule.find((key) => key.jwk.kid === oldKid);
    expect(Date.parse(retiring?.retires_at ?? '')).toBeGreaterThan(Date.now() + 15 * 60_000);
  }, 60_000);

  it('refuses a second rotation while a key is still waiting to sign', async () => {
    vi.resetModules();
    const { rotateSigningKey } = await import('#lib/oauth/key-rotation.ts');
    const pending = await rotateSigningKey();

    await expect(rotateSigningKey()).rejects.toThrow(`key ${pending.kid} is already rotating in`);
  });

  // After the rotation: the tool server's one unknown-kid re-read per cooldown is spent here.
  it('refuses a token whose kid is not published with 401 once the keys are read', async () => {
    const { provider } = await connectAssistant({ baseUrl: stack.info.baseUrl, userToken: owner });
    const { token } = await tokenWithUnknownKey(provider.current.access_token);

    const response = await fetch(`${stack.info.baseUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    });

    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });
});
