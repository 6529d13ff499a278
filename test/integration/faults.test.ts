import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3, startSes } from '../../infra/local/emulators.ts';
import { ROOT_DIR } from '../../infra/local/paths.ts';
import { type ApiRequest, type ApiResponse, api as sharedApi } from '../support/api.ts';
import {
  type BreakableDynamoDb,
  type Relay,
  startBreakableDynamoDb,
  startRelay,
} from '../support/fault-emulators.ts';
import { png } from '../support/images.ts';

/**
 * Fault injection on a stack of this file's own (pausing the shared one would break the other
 * files): DynamoDB Local paused with SIGSTOP and killed, s3rver and aws-ses-v2-local cut off.
 * Every affected call must answer 503 in the API's error shape with retry-after (the harness
 * answers a bare `{"message"}` 503 if a function outlives its timeout, so the shape is the check),
 * nothing may be half-written, and the next call after recovery must succeed without a restart.
 */

// Short, so a stalled call ends within seconds; long enough for a healthy call on a busy machine.
const FUNCTION_TIMEOUT_SECONDS = 4;
// Starting DynamoDB Local again (a JVM) takes tens of seconds on a busy machine.
const FAULT_TEST_TIMEOUT_MS = 120_000;
const PHOTOS_BUCKET = 'business-platform-photos-local';

let stateDir: string;
let dynamodb: BreakableDynamoDb;
let s3: Relay;
let ses: Relay;
let stopHarness: (() => Promise<void>) | undefined;
let baseUrl: string;
let credentials: {
  businesses: { id: string; tokens: { owner: string } }[];
  agent_key: string;
  internal_api_key: string;
  platform_admin_token: string;
};
let lib: Awaited<ReturnType<typeof loadLib>>;

/** lib/ modules read their endpoints when they load: only after the env points at this stack. */
async function loadLib() {
  const [{ queryAll }, { tableName }, { addPhoto }, { s3: s3Client }, { ListObjectsV2Command }] =
    await Promise.all([
      import('#lib/db/query-all.ts'),
      import('#lib/db/client.ts'),
      import('#lib/media/photo-writes.ts'),
      import('#lib/storage/photo-bucket.ts'),
      import('@aws-sdk/client-s3'),
    ]);
  return { queryAll, tableName, addPhoto, s3Client, ListObjectsV2Command };
}

beforeAll(async () => {
  stateDir = mkdtempSync(join(tmpdir(), 'bps-faults-'));
  dynamodb = await startBreakableDynamoDb(join(stateDir, 'dynamodb'));
  s3 = await startRelay(await startS3(join(stateDir, 's3'), [PHOTOS_BUCKET]));
  ses = await startRelay(await startSes());
  Object.assign(process.env, {
    DYNAMODB_ENDPOINT: dynamodb.endpoint,
    S3_ENDPOINT: s3.endpoint,
    SES_ENDPOINT: ses.endpoint,
    // The stalled calls log errors, as they should; in test output they only hide the results.
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  });
  const { startHarness } = await import('../../infra/local/harness.ts');
  const harness = await startHarness({
    port: 0,
    stateDir,
    ephemeral: false,
    logRequests: false,
    rootDir: ROOT_DIR,
    emulators: { dynamodb, s3, ses },
    functionTimeoutSeconds: FUNCTION_TIMEOUT_SECONDS,
  });
  stopHarness = harness.stop;
  baseUrl = harness.baseUrl;
  credentials = harness.credentials;
  lib = await loadLib();
});

afterAll(async () => {
  dynamodb?.resume();
  await stopHarness?.();
  await Promise.allSettled([dynamodb?.stop(), s3?.stop(), ses?.stop()]);
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

const api = (method: string, path: string, request: ApiRequest = {}) =>
  sharedApi(method, path, { ...request, baseUrl });
const first = () => credentials.businesses[0]?.id as string;
const second = () => credentials.businesses[1]?.id as string;
const agent = () => ({ token: credentials.agent_key });
const internal = () => ({ headers: { 'x-internal-api-key': credentials.internal_api_key } });
const faqs = (businessId = first()) => `/api/v1/agent/businesses/${businessId}/faqs`;
const MEDIA = '/api/v1/internal/media';

/** The affected calls of one fault, by name, sent at once. */
function calls(marker: string, sourcePhoto: string) {
  return {
    'agent list (key lookup)': () => api('GET', faqs(), agent()),
    'agent create': () =>
      api('POST', faqs(), { ...agent(), json: { question: `${marker}?`, answer: 'Maybe.' } }),
    'console read (membership)': () =>
      api('GET', `/api/v1/businesses/${first()}/blog_posts/auto_schedule`, {
        token: credentials.businesses[0]?.tokens.owner,
      }),
    'edits list (membership)': () =>
      api('GET', `/api/v1/edits/businesses/${first()}/changesets`, {
        token: credentials.businesses[0]?.tokens.owner,
      }),
    'internal list': () => api('GET', `${MEDIA}/photos?business_id=${second()}`, internal()),
    'internal import (bytes, then item)': () => importDerivative(sourcePhoto, marker),
  };
}

function importDerivative(sourcePhoto: string, altText: string) {
  const form = new FormData();
  form.append('file', new Blob([png(3, 2)]), 'edited.png');
  form.append(
    'meta',
    JSON.stringify({ business_id: second(), source_asset_id: sourcePhoto, alt_text: altText }),
  );
  return api('POST', `${MEDIA}/photos/import-derivative`, { ...internal(), raw: form as never });
}

const oauthRefresh = () =>
  api('POST', '/oauth/token', {
    raw: 'grant_type=refresh_token&refresh_token=rt_unknown&client_id=unknown-client',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });

async function sendAll(named: Record<string, () => Promise<ApiResponse>>) {
  const entries = Object.entries(named);
  const responses = await Promise.all(entries.map(([, send]) => send()));
  return entries.map(([name], index) => [name, responses[index] as ApiResponse] as const);
}

function expectUnavailable(name: string, response: ApiResponse) {
  expect(response.status, `${name}: ${JSON.stringify(response.body)}`).toBe(503);
  expect(response.headers.get('retry-after'), name).toMatch(/^\d+$/);
  expect(response.body, name).toEqual({
    request_id: response.headers.get('x-request-id'),
    success: false,
    error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String) },
  });
}

function expectOAuthUnavailable(response: ApiResponse) {
  expect(response.status, JSON.stringify(response.body)).toBe(503);
  expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(response.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
}

/** A photo of the second business to derive from, made while everything is up. */
async function sourcePhoto() {
  const photo = await lib.addPhoto({
    businessId: second(),
    bytes: png(8, 8),
    contentType: 'image/png',
    source: 'upload',
  });
  return photo.id;
}

async function partition(businessId: string) {
  return lib.queryAll({
    TableName: lib.tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': `BUSINESS#${businessId}` },
    ConsistentRead: true,
  });
}

async function photoObjects(businessId: string): Promise<string[]> {
  const listed = await lib.s3Client.send(
    new lib.ListObjectsV2Command({ Bucket: PHOTOS_BUCKET, Prefix: `businesses/${businessId}/photos/` }),
  );
  return (listed.Contents ?? []).map((object) => object.Key?.split('/').pop() as string).sort();
}

/**
 * Work a stalled call left running lands once the dependency is back (the 503 did not cancel
 * it); wait until the stored state stops changing before judging it.
 */
async function settled<T>(read: () => Promise<T>): Promise<T> {
  let previous = JSON.stringify(await read());
  for (let round = 0; round < 30; round++) {
    await new Promise((resolve) => setTimeout(resolve, 700));
    const current = await read();
    if (JSON.stringify(current) === previous) return current;
    previous = JSON.stringify(current);
  }
  throw new Error('the stored state kept changing');
}

/** Each FAQ is stored with its count and its one `create` history entry, or not at all. */
async function expectFaqsWhole(businessId: string) {
  const items = await settled(() => partition(businessId));
  const records = items.filter((item) => String(item.sk).startsWith('RECORD#faq#'));
  const history = items.filter((item) => String(item.sk).startsWith('HISTORY#') && item.entity === 'faq');
  const count = Number(items.find((item) => item.sk === 'COUNT#faq')?.count ?? 0);
  expect(records.length).toBe(count);
  for (const record of records) {
    const created = history.filter((entry) => entry.record_id === record.id && entry.action === 'create');
    expect(created, `history of ${record.id}`).toHaveLength(1);
  }
  for (const entry of history.filter((e) => e.action === 'create')) {
    const deleted = history.some((e) => e.record_id === entry.record_id && e.action === 'delete');
    expect(
      deleted || records.some((record) => record.id === entry.record_id),
      `record ${entry.record_id}`,
    ).toBe(true);
  }
  return records;
}

/** Every live photo with bytes of its own has them in S3, and every object in S3 has its photo. */
async function expectPhotosWhole(businessId: string) {
  const items = await settled(async () => [await partition(businessId), await photoObjects(businessId)]);
  const photos = (items[0] as Record<string, unknown>[]).filter((item) =>
    String(item.sk).startsWith('PHOTO#'),
  );
  const objects = items[1] as string[];
  const withBytes = photos
    .filter((photo) => photo.photo_source !== 'external' && !photo.deleted_at)
    .map((photo) => String(photo.id))
    .sort();
  expect(objects).toEqual(withBytes);
  return photos;
}

describe('faults: DynamoDB Local paused (SIGSTOP)', () => {
  it(
    'answers every affected call 503 ErrorResponse with retry-after, writes nothing half, and recovers',
    async () => {
      const source = await sourcePhoto();
      // Warm: every handler loaded and connected while healthy.
      for (const [name, response] of await sendAll(calls('warm', source))) {
        expect(response.status, name).toBeLessThan(500);
      }
      expect((await oauthRefresh()).status).toBe(400);

      dynamodb.pause();
      let responses: Awaited<ReturnType<typeof sendAll>>;
      let oauth: ApiResponse;
      try {
        [responses, oauth] = await Promise.all([sendAll(calls('paused', source)), oauthRefresh()]);
      } finally {
        dynamodb.resume();
      }
      for (const [name, response] of responses) expectUnavailable(name, response);
      expectOAuthUnavailable(oauth);

      const next = await api('GET', faqs(), agent());
      expect(next.status).toBe(200);
      const records = await expectFaqsWhole(first());
      expect(records.filter((record) => record.question === 'warm?')).toHaveLength(1);
      await expectPhotosWhole(second());
    },
    FAULT_TEST_TIMEOUT_MS,
  );
});

describe('faults: DynamoDB Local killed, then started again on the same port', () => {
  it(
    'answers 503 ErrorResponse with retry-after while it is down, keeps every write whole, and serves again after the restart',
    async () => {
      const source = await sourcePhoto();
      const before = await api('POST', faqs(), {
        ...agent(),
        json: { question: 'before kill?', answer: 'Yes.' },
      });
      expect(before.status).toBe(201);

      await dynamodb.kill();
      let responses: Awaited<ReturnType<typeof sendAll>>;
      try {
        responses = await sendAll(calls('killed', source));
      } finally {
        await dynamodb.restart();
      }
      for (const [name, response] of responses) expectUnavailable(name, response);

      const listed = await api('GET', `${faqs()}?limit=100`, agent());
      expect(listed.status).toBe(200);
      const after = await api('POST', faqs(), {
        ...agent(),
        json: { question: 'after restart?', answer: 'Yes.' },
      });
      expect(after.status).toBe(201);
      // Whether 'before kill?' survived is DynamoDB Local's own durability (it may lose its last
      // acknowledged writes to a SIGKILL; DynamoDB acknowledges only durable ones): not asserted.
      const records = await expectFaqsWhole(first());
      expect(records.map((record) => record.question)).toContain('after restart?');
      expect(records.filter((record) => record.question === 'killed?')).toEqual([]);
      await expectPhotosWhole(second());
    },
    FAULT_TEST_TIMEOUT_MS,
  );
});

describe('faults: S3 unreachable', () => {
  it(
    'answers photo reads and imports 503 ErrorResponse with retry-after, keeps no item without bytes, and recovers',
    async () => {
      const source = await sourcePhoto();
      const photosBefore = await expectPhotosWhole(second());

      await s3.cut();
      let bytes: ApiResponse;
      let imported: ApiResponse;
      try {
        [bytes, imported] = await Promise.all([
          api('GET', `${MEDIA}/photos/${source}/bytes`, internal()),
          importDerivative(source, 's3-down'),
        ]);
      } finally {
        await s3.restore();
      }
      expectUnavailable('photo bytes', bytes);
      expectUnavailable('import', imported);

      const photosDuring = await expectPhotosWhole(second());
      expect(photosDuring).toHaveLength(photosBefore.length);
      expect((await api('GET', `${MEDIA}/photos/${source}/bytes`, internal())).status).toBe(200);
      expect((await importDerivative(source, 's3-back')).status).toBe(201);
      expect(await expectPhotosWhole(second())).toHaveLength(photosBefore.length + 1);
    },
    FAULT_TEST_TIMEOUT_MS,
  );
});

describe('faults: SES unreachable', () => {
  it(
    'answers an invitation 503 ErrorResponse with retry-after, and the same invitation later succeeds once',
    async () => {
      const admin = { token: credentials.platform_admin_token };
      const email = 'ses.cut@example.com';

      await ses.cut();
      let invited: ApiResponse;
      try {
        invited = await api('POST', '/api/v1/admin/users', { ...admin, json: { email } });
      } finally {
        await ses.restore();
      }
      expectUnavailable('invite', invited);

      const retried = await api('POST', '/api/v1/admin/users', { ...admin, json: { email } });
      expect(retried.status).toBe(201);
      const users = await api('GET', '/api/v1/admin/users', admin);
      expect(users.status).toBe(200);
      expect(JSON.stringify(users.body).split(email).length - 1).toBe(1);
    },
    FAULT_TEST_TIMEOUT_MS,
  );
});
