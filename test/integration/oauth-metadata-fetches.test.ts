/**
 * What /oauth/authorize fetches when an outsider names a Client ID Metadata Document URL, counted
 * at the document host (test/support/document-host.ts): failures are cached a minute, every
 * document at least 5 minutes, a URL with a query is never fetched, fetches are limited per source
 * and per host, and the whole fetch has a short deadline. These tests send from addresses of
 * their own (`from`), so that the suite's own address keeps its budget.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { keys } from '#lib/db/keys.ts';
import { DOCUMENT_FETCH_LIMITS } from '#lib/oauth/client-metadata-document.ts';
import { expectErrorPage, host } from '../support/authorize-answers.ts';
import { documentHits, documentRequests, scriptDocument } from '../support/document-host.ts';
import { harnessTable } from '../support/harness-table.ts';
import { REDIRECT_URI, randomLoopbackAddress, startAuthorization } from '../support/oauth.ts';

const document = (clientId: string) =>
  JSON.stringify({ client_id: clientId, client_name: 'Doc Assistant', redirect_uris: [REDIRECT_URI] });

/** A fresh path on a document host, and the client_id that names it. */
function newDocumentUrl(origin = host()) {
  const path = `/clients/${randomUUID()}.json`;
  return { path, clientId: `${origin}${path}` };
}

const authorizeFrom = (from: string, clientId: string) => startAuthorization({ clientId, from });

/** Set attributes of the table item a document URL's answer is cached in. */
async function setCachedItem(clientId: string, fields: Record<string, number>) {
  const { db, tableName } = harnessTable();
  const names = Object.keys(fields);
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.oauthClient(clientId),
      UpdateExpression: `SET ${names.map((_, index) => `#n${index} = :v${index}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((name, index) => [`#n${index}`, name])),
      ExpressionAttributeValues: Object.fromEntries(names.map((name, index) => [`:v${index}`, fields[name]])),
      ConditionExpression: 'attribute_exists(pk)',
    }),
  );
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('caching what a document URL answered', () => {
  it('caches a failure for a minute: a failing URL is fetched once, then again once the minute has passed', async () => {
    const { path, clientId } = newDocumentUrl();
    const from = randomLoopbackAddress();

    // Act: a 404, asked for twice; then the document appears, within the minute and after it.
    const first = await authorizeFrom(from, clientId);
    const second = await authorizeFrom(randomLoopbackAddress(), clientId);
    await scriptDocument(host(), path, { status: 200, body: document(clientId) });
    const withinTheMinute = await authorizeFrom(from, clientId);
    const fetchesWithinTheMinute = await documentHits(host(), path);
    // DynamoDB's TTL deletes late: the failure's own epoch is what ends it.
    await setCachedItem(clientId, { failed_until_epoch: nowSeconds() - 1 });
    const afterIt = await authorizeFrom(from, clientId);

    // Assess
    expectErrorPage(first);
    expectErrorPage(second);
    expectErrorPage(withinTheMinute);
    expect(fetchesWithinTheMinute).toBe(1);
    expect(afterIt.response.status).toBe(302);
    expect(await documentHits(host(), path)).toBe(2);
  });

  it('keeps the failure item only a minute', async () => {
    const { clientId } = newDocumentUrl();
    const before = nowSeconds();

    await authorizeFrom(randomLoopbackAddress(), clientId);

    const { db, tableName } = harnessTable();
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.oauthClient(clientId) }));
    expect(Item?.failed_until_epoch).toBeGreaterThanOrEqual(before + 60);
    expect(Item?.failed_until_epoch).toBeLessThanOrEqual(nowSeconds() + 60);
    expect(Item?.expires_at_epoch).toBe(Item?.failed_until_epoch);
  });

  it.each([
    ['no-store', { 'cache-control': 'no-store' }, 5 * 60],
    ['max-age=0', { 'cache-control': 'max-age=0' }, 5 * 60],
    ['no-cache, private', { 'cache-control': 'no-cache, private' }, 5 * 60],
    ['nothing', {}, 5 * 60],
    ['max-age of a week', { 'cache-control': 'max-age=604800' }, 24 * 60 * 60],
  ])(
    'keeps a document that says %s for at least 5 minutes and at most 24 hours, fetched once',
    async (_name, cacheHeaders, seconds) => {
      const { path, clientId } = newDocumentUrl();
      await scriptDocument(host(), path, {
        status: 200,
        headers: { 'content-type': 'application/json', ...cacheHeaders },
        body: document(clientId),
      });
      const before = nowSeconds();

      const first = await authorizeFrom(randomLoopbackAddress(), clientId);
      const second = await authorizeFrom(randomLoopbackAddress(), clientId);

      expect(first.response.status).toBe(302);
      expect(second.response.status).toBe(302);
      expect(await documentHits(host(), path)).toBe(1);
      const { db, tableName } = harnessTable();
      const { Item } = await db.send(
        new GetCommand({ TableName: tableName, Key: keys.oauthClient(clientId) }),
      );
      expect(Item?.fresh_until_epoch).toBeGreaterThanOrEqual(before + seconds);
      expect(Item?.fresh_until_epoch).toBeLessThanOrEqual(nowSeconds() + seconds);
    },
  );
});

describe('URLs that are never fetched', () => {
  it.each([
    ['a query string', '?v=1'],
    ['an empty query string', '?'],
    ['a query string that looks like a path', '?/../other.json'],
  ])('refuses a document URL with %s, before any fetch (error page)', async (_name, query) => {
    const { path, clientId } = newDocumentUrl();
    await scriptDocument(host(), path, { status: 200, body: document(`${clientId}${query}`) });

    const started = await authorizeFrom(randomLoopbackAddress(), `${clientId}${query}`);

    expectErrorPage(started);
    expect(started.body).toContain('must not contain a query string');
    expect(await documentHits(host(), path)).toBe(0);
  });
});

/** Authorize with new failing URLs on `origin` from `from()` until refused, or `most` were sent. */
async function fetchUntilRefused(origin: string, from: () => string, most: number) {
  const fetched: string[] = [];
  while (fetched.length < most) {
    const { path, clientId } = newDocumentUrl(origin);
    const started = await authorizeFrom(from(), clientId);
    if (started.response.status !== 400) return { fetched, refused: { started, path } };
    fetched.push(path);
  }
  return { fetched, refused: undefined };
}

/** The 429 page of a refused fetch: the error page's headers and words, and when to retry. */
function expectRefusedFetch(started: Awaited<ReturnType<typeof startAuthorization>>, why: string) {
  expect(started.response.status).toBe(429);
  expect(Number(started.response.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(started.response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(started.response.headers.get('content-security-policy')).toContain("default-src 'none'");
  expect(started.location).toBeUndefined();
  expect(started.body).toContain(why);
}

describe('fetch limits', () => {
  it('refuses the next fetch for a source past its limit, without fetching, and still fetches for another source', async () => {
    const other = inject('documentHostOther');
    const source = randomLoopbackAddress();
    const limit = DOCUMENT_FETCH_LIMITS.source.limit;

    // Act: new URLs (each fetched, each a 404) from one address; a window may end on the way.
    const { fetched, refused } = await fetchUntilRefused(other, () => source, 2 * limit + 1);
    const elsewhere = newDocumentUrl();
    await scriptDocument(host(), elsewhere.path, { status: 200, body: document(elsewhere.clientId) });
    const otherSource = await authorizeFrom(randomLoopbackAddress(), elsewhere.clientId);

    // Assess
    expect(refused).toBeDefined();
    expectRefusedFetch(
      refused?.started as Awaited<ReturnType<typeof startAuthorization>>,
      'for this address',
    );
    expect(await documentHits(other, refused?.path ?? '')).toBe(0);
    expect(fetched.length).toBeGreaterThanOrEqual(limit);
    expect(await documentHits(other, fetched[0] ?? '')).toBe(1);
    expect(otherSource.response.status).toBe(302);
  }, 120_000);

  it('refuses the next fetch from a host past its limit, whoever asks, and serves a last good copy meanwhile', async () => {
    const other = inject('documentHostOther');
    const limit = DOCUMENT_FETCH_LIMITS.host.limit;
    // Prepare: a document of that host, cached, then past its freshness (not yet gone).
    const kept = newDocumentUrl(other);
    await scriptDocument(host(), kept.path, { status: 200, body: document(kept.clientId) });
    expect((await authorizeFrom(randomLoopbackAddress(), kept.clientId)).response.status).toBe(302);
    await setCachedItem(kept.clientId, { fresh_until_epoch: nowSeconds() - 1 });

    // Act: new URLs of that host from ever new addresses, each below its own limit.
    const { fetched, refused } = await fetchUntilRefused(other, randomLoopbackAddress, 2 * limit + 1);
    const keptAgain = await authorizeFrom(randomLoopbackAddress(), kept.clientId);
    const elsewhere = newDocumentUrl();
    await scriptDocument(host(), elsewhere.path, { status: 200, body: document(elsewhere.clientId) });
    const otherHost = await authorizeFrom(randomLoopbackAddress(), elsewhere.clientId);

    // Assess: refused without a fetch; the kept document from the table; another host fetched.
    expect(refused).toBeDefined();
    expectRefusedFetch(refused?.started as Awaited<ReturnType<typeof startAuthorization>>, 'from this site');
    expect(await documentHits(other, refused?.path ?? '')).toBe(0);
    expect(fetched.length).toBeGreaterThanOrEqual(1);
    expect(keptAgain.response.status).toBe(302);
    expect(await documentHits(other, kept.path)).toBe(1);
    expect(otherHost.response.status).toBe(302);
    expect(await documentHits(host(), elsewhere.path)).toBe(1);
  }, 120_000);
});

describe('the fetch deadline', () => {
  it('abandons a document drip-fed over 2.4 s, though each byte comes promptly, and caches the failure', async () => {
    // Prepare: a valid document, one byte at a time: the whole of it comes after 2.4 s.
    const { path, clientId } = newDocumentUrl();
    const body = document(clientId);
    await scriptDocument(host(), path, { status: 200, body, dripMs: Math.ceil(2400 / body.length) });

    // Act
    const started = await authorizeFrom(randomLoopbackAddress(), clientId);
    const again = await authorizeFrom(randomLoopbackAddress(), clientId);

    // Assess: the service hung up before the end, and does not try again within the minute.
    expectErrorPage(started);
    expectErrorPage(again);
    await expect.poll(() => documentRequests(host(), path)).toEqual({ hits: 1, abandoned: 1 });
  });
});
