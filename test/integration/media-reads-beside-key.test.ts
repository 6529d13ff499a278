import { randomUUID } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EARLY_READ_CHANNEL, type EarlyReadStart } from '#lib/http/early-read.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { buildHttpApiEvent, matchRoute } from '../../infra/local/http-api-event.ts';
import { MEDIA, upload } from '../support/internal-media.ts';
import { arrangeTenant, type Tenant } from '../support/tenants.ts';

/**
 * The internal media reads go out while the internal key is checked (`besideInternalKey`): in AWS
 * the keys come from Secrets Manager at a cold start, and the read need not wait for them. The
 * harness keeps its keys in the environment, so the check takes no time there and no count of
 * calls could show the overlap: the handlers run in this process instead, and the pipeline's
 * early-read channel tells whether each started its read before the key was checked.
 */
const HANDLERS = {
  listMediaBusinesses: () => import('../../functions/media/list-businesses.ts'),
  checkBusinessMembership: () => import('../../functions/media/check-membership.ts'),
  listGalleryPhotos: () => import('../../functions/media/list-gallery.ts'),
  listBusinessPhotos: () => import('../../functions/media/list-photos.ts'),
  getPhotoUsages: () => import('../../functions/media/get-photo-usages.ts'),
} as const;
type Operation = keyof typeof HANDLERS;

/** Reads the pipeline started early, as its channel's subscriber sees them (undefined: none started). */
let started = 0;
const countStart = (message: unknown) => {
  (message as EarlyReadStart).run = (read) => {
    const pending = read();
    if (pending !== undefined) started += 1;
    return pending;
  };
};

async function call(operation: Operation, url: string, key: string | undefined) {
  const route = routeTable.find((candidate) => candidate.operationId === operation);
  const match = route && matchRoute([route], 'GET', url.split('?')[0] ?? '');
  if (!match) throw new Error(`${operation} does not match ${url}`);
  const event: APIGatewayProxyEventV2 = buildHttpApiEvent(
    {
      method: 'GET',
      url,
      rawHeaders: key === undefined ? [] : ['x-internal-api-key', key],
      body: Buffer.alloc(0),
      sourceIp: '127.0.0.1',
    },
    match,
  );
  const { handler } = await HANDLERS[operation]();
  const context = { getRemainingTimeInMillis: () => 10_000, functionName: operation } as unknown as Context;
  const invoke = handler as unknown as (e: APIGatewayProxyEventV2, c: Context) => Promise<unknown>;
  const before = started;
  const result = (await invoke(event, context)) as APIGatewayProxyStructuredResultV2;
  return {
    status: result.statusCode,
    body: JSON.parse(result.body ?? 'null'),
    readStarted: started > before,
  };
}

describe('internal media reads beside the key check', () => {
  let tenant: Tenant;
  let photoId: string;
  const key = () => inject('harness').credentials.internal_api_key;
  const requests = (): [Operation, string][] => [
    ['listMediaBusinesses', `${MEDIA}/businesses?limit=1`],
    ['checkBusinessMembership', `${MEDIA}/businesses/${tenant.businessId}/members/${randomUUID()}`],
    ['listGalleryPhotos', `${MEDIA}/gallery?limit=1`],
    ['listBusinessPhotos', `${MEDIA}/photos?business_id=${tenant.businessId}`],
    ['getPhotoUsages', `${MEDIA}/photos/${photoId}/usages`],
  ];

  beforeAll(async () => {
    tenant = await arrangeTenant();
    photoId = (await upload(tenant.businessId)).id;
    subscribe(EARLY_READ_CHANNEL, countStart);
  });
  afterAll(() => unsubscribe(EARLY_READ_CHANNEL, countStart));

  it('starts each read beside the key check and answers with it once the key has passed', async () => {
    for (const [operation, url] of requests()) {
      const answered = await call(operation, url, key());

      expect(answered.status, operation).toBe(200);
      expect(answered.readStarted, operation).toBe(true);
    }
    // What was read early is what the operation answers (the media routes' bodies are bare).
    const photos = await call(
      'listBusinessPhotos',
      `${MEDIA}/photos?business_id=${tenant.businessId}`,
      key(),
    );
    expect(JSON.stringify(photos.body)).toContain(photoId);
    const usages = await call('getPhotoUsages', `${MEDIA}/photos/${photoId}/usages`, key());
    expect(JSON.stringify(usages.body)).toContain(photoId);
  });

  it('answers a wrong key 401 with nothing of what was read, and reads nothing without the header', async () => {
    for (const [operation, url] of requests()) {
      const refused = await call(operation, url, `wrong-${randomUUID()}`);
      expect(refused.status, operation).toBe(401);
      expect(Object.keys(refused.body).sort(), operation).toEqual(['error', 'request_id', 'success']);
      expect(JSON.stringify(refused.body), operation).not.toContain(tenant.businessId);

      const anonymous = await call(operation, url, undefined);
      expect(anonymous.status, operation).toBe(401);
      expect(anonymous.readStarted, operation).toBe(false);
    }
  });

  it('answers a cursor that does not decode 401 without the key and 422 with it', async () => {
    const url = `${MEDIA}/photos?business_id=${tenant.businessId}&cursor=${'x'.repeat(40)}`;

    expect((await call('listBusinessPhotos', url, `wrong-${randomUUID()}`)).status).toBe(401);
    expect((await call('listBusinessPhotos', url, key())).status).toBe(422);
  });
});
