import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startDynamoDbLocal, startS3, startSes } from '../../infra/local/emulators.ts';
import type { LocalCredentials } from '../../infra/local/local-credentials.ts';
import { ROOT_DIR } from '../../infra/local/paths.ts';
import { type ApiRequest, type ApiResponse, api as sharedApi } from '../support/api.ts';
import { type DynamoCall, type DynamoDbProxy, startDynamoDbProxy } from '../support/dynamodb-proxy.ts';

/**
 * A write answered 503 may still be applied once DynamoDB resumes, so a client that retries must
 * not create a duplicate. On a stack of this file's own whose DynamoDB sits behind a
 * proxy that can lose answers: DynamoDB applies the create, the function's SDK call times out, it
 * answers 503 and Powertools drops its in-progress record. A retry with the same Idempotency-Key
 * must then find the create it already wrote (same id, one stored item), and another body 422.
 */

// The SDK gives up on a lost answer after 3 attempts of this long (plus backoff), well inside the
// function's timeout; long enough for a healthy call on a busy machine.
const SDK_REQUEST_TIMEOUT_MS = 2_000;
const FUNCTION_TIMEOUT_SECONDS = 15;
const PHOTOS_BUCKET = 'business-platform-photos-local';

let stateDir: string;
let s3Dir: string;
let proxy: DynamoDbProxy;
let s3: RunningEmulator;
let ses: RunningEmulator;
let stopHarness: (() => Promise<void>) | undefined;
let baseUrl: string;
let credentials: LocalCredentials;
let lib: Awaited<ReturnType<typeof loadLib>>;

/** lib/ modules read their endpoints when they load: only after the env points at this stack. */
async function loadLib() {
  const [{ dynamo, tableName }, { ScanCommand }, agents] = await Promise.all([
    import('#lib/db/client.ts'),
    import('@aws-sdk/lib-dynamodb'),
    import('../support/agents.ts'),
  ]);
  /** Every item of this stack's table whose pk starts with `prefix`. */
  const itemsUnder = async (prefix: string) => {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await dynamo.send(
        new ScanCommand({
          TableName: tableName,
          FilterExpression: 'begins_with(pk, :prefix)',
          ExpressionAttributeValues: { ':prefix': prefix },
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  };
  return { itemsUnder, agents };
}

beforeAll(async () => {
  stateDir = mkdtempSync(join(tmpdir(), 'bps-lost-answer-'));
  s3Dir = mkdtempSync(join(tmpdir(), 'bps-lost-answer-s3-'));
  proxy = await startDynamoDbProxy(await startDynamoDbLocal(undefined));
  s3 = await startS3(s3Dir, [PHOTOS_BUCKET]);
  ses = await startSes();
  Object.assign(process.env, {
    DYNAMODB_REQUEST_TIMEOUT_MS: String(SDK_REQUEST_TIMEOUT_MS),
    // The lost answers log errors, as they should; in test output they only hide the results.
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  });
  const { startHarness } = await import('../../infra/local/harness.ts');
  const harness = await startHarness({
    port: 0,
    stateDir,
    ephemeral: true,
    logRequests: false,
    rootDir: ROOT_DIR,
    emulators: { dynamodb: proxy, s3, ses },
    functionTimeoutSeconds: FUNCTION_TIMEOUT_SECONDS,
  });
  stopHarness = harness.stop;
  baseUrl = harness.baseUrl;
  credentials = harness.credentials;
  lib = await loadLib();
}, 180_000);

afterAll(async () => {
  proxy?.release();
  await stopHarness?.();
  await Promise.allSettled([proxy?.stop(), s3?.stop(), ses?.stop()]);
  rmSync(s3Dir, { recursive: true, force: true });
});

const api = (method: string, path: string, request: ApiRequest = {}) =>
  sharedApi(method, path, { ...request, baseUrl });
const withKey = (key: string) => ({ 'idempotency-key': key });
const isIdempotencyRecord = (call: DynamoCall) => call.body.includes('"IDEMPOTENCY#');

/** The first answer: our own 503 in the API's error shape, with retry-after. */
function expectUnavailable(response: ApiResponse) {
  expect(response.status).toBe(503);
  expect(response.body).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
}

/**
 * Send a retry as a client following the contract does: a 409 with retry-after (the key's first
 * request still counts as running, e.g. when a call of it timed out on a busy machine) is waited
 * out and sent again.
 */
async function settled(send: () => Promise<ApiResponse>): Promise<ApiResponse> {
  let response = await send();
  while (response.status === 409 && response.headers.get('retry-after')) {
    await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after')) * 1000));
    response = await send();
  }
  return response;
}

function expectKeyReused(response: ApiResponse) {
  expect(response.status).toBe(422);
  expect(response.body.error.details).toContainEqual(
    expect.objectContaining({ loc: ['header', 'idempotency-key'], type: 'idempotency_key_reused' }),
  );
}

/** Lose the answer of the write(s) `isCreate` picks, send `first`, then forward everything again. */
async function withLostAnswer(isCreate: (call: DynamoCall) => boolean, first: () => Promise<ApiResponse>) {
  proxy.intercept((call) => (!isIdempotencyRecord(call) && isCreate(call) ? 'lose-answer' : 'forward'));
  try {
    const response = await first();
    return { response, ...proxy.release() };
  } finally {
    proxy.release();
  }
}

describe('a create applied by DynamoDB while the function answered 503', () => {
  it('agent create: the retry answers with the record it wrote, and there is one record', async () => {
    const { agents } = lib;
    const tenant = await agents.arrangeAgentTenant();
    const path = agents.collectionPath(tenant.businessId, 'faq');
    const body = agents.minimalBodies.faq;
    const create = (json: unknown, key: string) =>
      agents.agentApi('POST', path, tenant.key, { json, headers: withKey(key), baseUrl });
    const stored = async () =>
      (await agents.agentApi('GET', path, tenant.key, { baseUrl })).body.data as { id: string }[];
    const key = randomUUID();

    const first = await withLostAnswer(
      (call) => call.operation === 'TransactWriteItems',
      () => create(body, key),
    );
    expectUnavailable(first.response);
    expect(first.lostAnswers.length).toBeGreaterThan(0);
    // The 503 was not a "did not happen": the record is there.
    const [applied] = await stored();
    expect(await stored()).toHaveLength(1);

    expectKeyReused(await settled(() => create({ ...body, question: 'Another question?' }, key)));
    const retry = await settled(() => create(body, key));
    expect(retry.status).toBe(201);
    expect(retry.body.data).toEqual(applied);
    expect(retry.headers.get('etag')).toBe(`"${retry.body.data.version}"`);
    expect(await stored()).toEqual([applied]);

    // From now on Powertools replays the stored answer, as after any success.
    const again = await create(body, key);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data).toEqual(applied);
    // The hidden request hash never shows.
    expect(JSON.stringify(retry.body)).not.toContain('idempotency');
  });

  it('opening an edit session: the retry answers with the session it opened, and there is one', async () => {
    const token = credentials.platform_admin_token;
    const [business, otherBusiness] = credentials.businesses;
    const open = (businessId: string | undefined, key: string) =>
      api('POST', '/api/v1/edits/sessions', {
        token,
        json: { business_id: businessId },
        headers: withKey(key),
      });
    const sessions = async () => lib.itemsUnder('EDIT_SESSION#');
    const before = (await sessions()).length;
    const key = randomUUID();

    const first = await withLostAnswer(
      (call) => call.operation === 'PutItem' && call.body.includes('"EDIT_SESSION#'),
      () => open(business?.id, key),
    );
    expectUnavailable(first.response);
    expect(first.lostAnswers.length).toBeGreaterThan(0);
    expect(await sessions()).toHaveLength(before + 1);

    expectKeyReused(await settled(() => open(otherBusiness?.id, key)));
    const retry = await settled(() => open(business?.id, key));
    expect(retry.status).toBe(201);
    expect(retry.body.data).toMatchObject({ business_id: business?.id, is_open: true });
    expect(await sessions()).toHaveLength(before + 1);
    expect((await sessions()).map((item) => item.id)).toContain(retry.body.data.id);
    expect(Object.keys(retry.body.data)).not.toContain('idempotency_request');
  });

  it('staging a changeset: the retry answers with the changeset it staged, and there is one', async () => {
    const [business] = credentials.businesses;
    const token = business?.tokens.owner ?? '';
    const session = (
      await api('POST', '/api/v1/edits/sessions', { token, json: { business_id: business?.id } })
    ).body.data;
    const stage = (question: string, key: string) =>
      api('POST', `/api/v1/edits/sessions/${session.id}/changesets`, {
        token,
        headers: withKey(key),
        json: { items: [{ entity: 'faq', action: 'create', fields: { question, answer: 'Yes.' } }] },
      });
    const list = async () =>
      (await api('GET', `/api/v1/edits/businesses/${business?.id}/changesets?limit=100`, { token })).body
        .data as { id: string }[];
    const before = await list();
    const key = randomUUID();

    const first = await withLostAnswer(
      // The header, written last: the changeset exists once it does.
      (call) => call.operation === 'PutItem' && call.body.includes('"CHANGESET#'),
      () => stage('Parking?', key),
    );
    expectUnavailable(first.response);
    expect(first.lostAnswers.length).toBeGreaterThan(0);
    expect(await list()).toHaveLength(before.length + 1);

    expectKeyReused(await settled(() => stage('Bikes?', key)));
    const retry = await settled(() => stage('Parking?', key));
    expect(retry.status).toBe(201);
    expect(retry.body.data).toMatchObject({
      status: 'staged',
      items: [{ fields: { question: 'Parking?' } }],
    });
    const after = await list();
    expect(after).toHaveLength(before.length + 1);
    expect(after.map((changeset) => changeset.id)).toContain(retry.body.data.id);
    const read = await api('GET', `/api/v1/edits/changesets/${retry.body.data.id}`, { token });
    expect(read.body.data).toEqual(retry.body.data);
  });

  it('inviting a platform admin: the retry answers with the invite, one invite, one e-mail', async () => {
    const token = credentials.platform_admin_token;
    const email = `lost-${randomUUID().slice(0, 8)}@example.com`;
    const invite = (json: unknown, key: string) =>
      api('POST', '/api/v1/admin/users', { token, json, headers: withKey(key) });
    const mails = async () => {
      const store = (await (await fetch(`${credentials.ses_web_url}/store`)).json()) as {
        emails: { destination: { to: string[] } }[];
      };
      return store.emails.filter((mail) => mail.destination.to.includes(email)).length;
    };
    const invitesFor = async () =>
      (
        (await api('GET', '/api/v1/admin/users', { token })).body.data as { id: string; email: string }[]
      ).filter((entry) => entry.email === email);
    const key = randomUUID();

    const first = await withLostAnswer(
      (call) => call.operation === 'TransactWriteItems' && call.body.includes(email),
      () => invite({ email }, key),
    );
    expectUnavailable(first.response);
    expect(first.lostAnswers.length).toBeGreaterThan(0);
    const [stored] = await invitesFor();
    expect(await invitesFor()).toHaveLength(1);
    // The first run never reached SES.
    expect(await mails()).toBe(0);

    expectKeyReused(await settled(() => invite({ email, phone: '+15551234567' }, key)));
    const retry = await settled(() => invite({ email }, key));
    expect(retry.status).toBe(201);
    expect(retry.body.data.id).toBe(stored?.id);
    expect(await invitesFor()).toHaveLength(1);
    expect(await mails()).toBe(1);
    expect(Object.keys(retry.body.data)).not.toContain('invite_mail');

    const again = await invite({ email }, key);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await mails()).toBe(1);
  });
});

describe('the in-progress record could not be dropped either', () => {
  it('a retry is a 409 with retry-after until the first function’s deadline, then gets the record', async () => {
    const { agents, itemsUnder } = lib;
    const tenant = await agents.arrangeAgentTenant();
    const path = agents.collectionPath(tenant.businessId, 'faq');
    const body = agents.minimalBodies.faq;
    const create = () =>
      agents.agentApi('POST', path, tenant.key, { json: body, headers: withKey(key), baseUrl });
    const key = randomUUID();
    const recordsBefore = new Set((await itemsUnder('IDEMPOTENCY#')).map((item) => item.pk));

    // The create's answer is lost, and DynamoDB stalls for Powertools' delete of its record.
    proxy.intercept((call) => {
      if (call.operation === 'TransactWriteItems') return 'lose-answer';
      if (call.operation === 'DeleteItem' && isIdempotencyRecord(call)) return 'drop';
      return 'forward';
    });
    const sentAt = Date.now();
    const first = await create().finally(() => proxy.release());
    const answeredAt = Date.now();
    expectUnavailable(first);

    const [record] = (await itemsUnder('IDEMPOTENCY#')).filter((item) => !recordsBefore.has(item.pk));
    expect(record).toMatchObject({ status: 'INPROGRESS' });
    // Its in-progress expiry is the first invocation's deadline: start + the function's timeout.
    const expiry = Number(record?.in_progress_expiration);
    expect(expiry).toBeGreaterThanOrEqual(sentAt + FUNCTION_TIMEOUT_SECONDS * 1000);
    expect(expiry).toBeLessThanOrEqual(answeredAt + FUNCTION_TIMEOUT_SECONDS * 1000);

    let conflicts = 0;
    let retry = await create();
    while (retry.status === 409) {
      conflicts += 1;
      expect(retry.body).toMatchObject({ success: false, error: { code: 'CONFLICT' } });
      const retryAfter = Number(retry.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
      retry = await create();
    }
    expect(conflicts).toBeGreaterThan(0);
    expect(retry.status).toBe(201);
    const stored = (await agents.agentApi('GET', path, tenant.key, { baseUrl })).body.data;
    expect(stored).toEqual([retry.body.data]);
  }, 60_000);
});
