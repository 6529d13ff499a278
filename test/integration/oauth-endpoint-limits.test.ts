/**
 * One caller must not lock every assistant out. The token and revocation routes share one route
 * throttle for all callers, sized for every assistant at once (cdk-production.test.ts), so the
 * functions hold back each caller themselves: per source address, and per client only for
 * requests that proved they are the client's (lib/oauth/endpoint-limits.ts).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { keys } from '#lib/db/keys.ts';
import { ENDPOINT_LIMITS } from '#lib/oauth/endpoint-limits.ts';
import { countInWindow } from '#lib/rate/fixed-window.ts';
import { grantIdOf, readGrant } from '../support/grant-items.ts';
import { harnessTable } from '../support/harness-table.ts';
import { obtainTokens, postFormFrom, randomLoopbackAddress } from '../support/oauth.ts';
import { arrangeTenant } from '../support/tenants.ts';

type Answer = Awaited<ReturnType<typeof postFormFrom>>;

/**
 * Send the form from one address, `parallel` at a time, until an answer is not `expected` (then
 * that answer) or `most` were sent. A window may end during the flood, so `most` allows two.
 */
async function floodUntilRefused(
  source: string,
  path: string,
  form: () => Record<string, string>,
  expected: number,
  most: number,
): Promise<{ sent: Answer[]; refused: Answer | undefined }> {
  const sent: Answer[] = [];
  while (sent.length < most) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, most - sent.length) }, () => postFormFrom(source, path, form())),
    );
    sent.push(...batch);
    const refused = batch.find((answer) => answer.status !== expected);
    if (refused) return { sent, refused };
  }
  return { sent, refused: undefined };
}

/** How many requests the client limit of `name` counted for a client, over all windows. */
async function clientCount(name: string, clientId: string): Promise<number> {
  const { db, tableName } = harnessTable();
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.rateWindow(name, clientId, 0).pk },
    }),
  );
  return Items.reduce((sum, item) => sum + Number(item.requests), 0);
}

describe('the token endpoint under a flood from one source', () => {
  it('answers the flood 429 from its limit on, while the client it names refreshes from elsewhere, its budget untouched', {
    timeout: 120_000,
  }, async () => {
    // Prepare: a connected assistant (one code exchange counted for its client).
    const tenant = await arrangeTenant();
    const victim = await obtainTokens({ userToken: tenant.tokens.owner });
    const clientId = victim.client.client_id;
    const limit = ENDPOINT_LIMITS.token.source.limit;

    // Act: refreshes with made-up tokens in the victim's name, from one address.
    const flood = await floodUntilRefused(
      randomLoopbackAddress(),
      '/oauth/token',
      () => ({
        grant_type: 'refresh_token',
        refresh_token: `rt_${randomBytes(32).toString('base64url')}`,
        client_id: clientId,
      }),
      400,
      2 * limit + 20,
    );
    const refresh = await postFormFrom(randomLoopbackAddress(), '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: victim.tokens.refresh_token as string,
      client_id: clientId,
    });

    // Assess: refused in the token endpoint's OAuth shape, after at least a window's worth.
    expect(flood.refused?.status).toBe(429);
    expect(flood.refused?.body).toEqual({
      error: 'temporarily_unavailable',
      error_description: expect.any(String),
    });
    expect(Number(flood.refused?.headers['retry-after'])).toBeGreaterThan(0);
    expect(flood.sent.filter((answer) => answer.status === 400).length).toBeGreaterThanOrEqual(limit);
    expect(flood.sent[0]?.body.error).toBe('invalid_grant');
    expect(refresh.status).toBe(200);
    expect(refresh.body.access_token).toEqual(expect.any(String));
    // Only the refresh, which held the client's token, counted for it (an exchange never does).
    expect(await clientCount(ENDPOINT_LIMITS.token.client.name, clientId)).toBe(1);
  });

  it('counts an address refused already, even when its request is valid', { timeout: 120_000 }, async () => {
    // Prepare: one address's window spent on junk.
    const tenant = await arrangeTenant();
    const { client, tokens } = await obtainTokens({ userToken: tenant.tokens.owner });
    const source = randomLoopbackAddress();
    const limit = ENDPOINT_LIMITS.token.source.limit;
    const junk = () => ({ grant_type: 'refresh_token', refresh_token: 'rt_junk', client_id: 'nobody' });
    const flood = await floodUntilRefused(source, '/oauth/token', junk, 400, 2 * limit + 20);
    expect(flood.refused?.status).toBe(429);

    // Act: a valid refresh from the same address within the window.
    const refresh = await postFormFrom(source, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
      client_id: client.client_id,
    });

    // Assess: refused before anything was read or rotated; the token still works elsewhere.
    expect(refresh.status).toBe(429);
    const elsewhere = await postFormFrom(randomLoopbackAddress(), '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
      client_id: client.client_id,
    });
    expect(elsewhere.status).toBe(200);
  });
});

describe('the revocation endpoint under a flood from one source', () => {
  it('answers the flood 429 from its limit on, while a client revokes its own token from elsewhere', {
    timeout: 120_000,
  }, async () => {
    // Prepare
    const tenant = await arrangeTenant();
    const { client, tokens } = await obtainTokens({ userToken: tenant.tokens.owner });
    const limit = ENDPOINT_LIMITS.revoke.source.limit;

    // Act: revocations of unknown tokens (each a 200 that changes nothing), from one address.
    const flood = await floodUntilRefused(
      randomLoopbackAddress(),
      '/oauth/revoke',
      () => ({ token: `rt_${randomUUID()}`, client_id: client.client_id }),
      200,
      2 * limit + 20,
    );
    const revoked = await postFormFrom(randomLoopbackAddress(), '/oauth/revoke', {
      token: tokens.refresh_token as string,
      client_id: client.client_id,
    });

    // Assess
    expect(flood.refused?.status).toBe(429);
    expect(flood.refused?.body.error).toBe('temporarily_unavailable');
    expect(Number(flood.refused?.headers['retry-after'])).toBeGreaterThan(0);
    expect(flood.sent.filter((answer) => answer.status === 200).length).toBeGreaterThanOrEqual(limit);
    expect(revoked.status).toBe(200);
    expect((await readGrant(grantIdOf(tokens.access_token)))?.revoked_at).toEqual(expect.any(String));
    expect(await clientCount(ENDPOINT_LIMITS.revoke.client.name, client.client_id)).toBe(1);
  });
});

describe('countInWindow (the table counter behind every per-key limit)', () => {
  // A minute that starts on a window boundary, so that each `now` below is placed exactly.
  const windowStart = Math.floor(Date.now() / 60_000) * 60_000;
  const at = (seconds: number) => windowStart + seconds * 1000;

  it('admits the limit per key and window, refuses the next until the window ends, then counts anew', async () => {
    const limit = { name: `test-${randomUUID()}`, limit: 3, windowSeconds: 60 };

    const admitted = [
      await countInWindow(limit, 'a', at(0)),
      await countInWindow(limit, 'a', at(20)),
      await countInWindow(limit, 'a', at(45)),
    ];
    const fourth = await countInWindow(limit, 'a', at(45));
    const lastMoment = await countInWindow(limit, 'a', at(59.5));
    const otherKey = await countInWindow(limit, 'b', at(45));
    const nextWindow = await countInWindow(limit, 'a', at(60));

    expect(admitted).toEqual([undefined, undefined, undefined]);
    expect(fourth).toEqual({ retryAfterSeconds: 15 });
    expect(lastMoment).toEqual({ retryAfterSeconds: 1 });
    expect(otherKey).toBeUndefined();
    expect(nextWindow).toBeUndefined();
  });

  it('stores one item per key and window, expiring a window after it ends', async () => {
    const limit = { name: `test-${randomUUID()}`, limit: 5, windowSeconds: 60 };
    await countInWindow(limit, 'a', at(10));
    await countInWindow(limit, 'a', at(30));

    const { db, tableName } = harnessTable();
    const { Items = [] } = await db.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.rateWindow(limit.name, 'a', 0).pk },
      }),
    );

    expect(Items).toHaveLength(1);
    expect(Items[0]).toMatchObject({ requests: 2, expires_at_epoch: windowStart / 1000 + 120 });
  });
});
