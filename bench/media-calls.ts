import { randomBytes } from 'node:crypto';
import { png } from '../infra/local/demo-images.ts';
import type { HarnessInfo } from '../infra/local/harness-process.ts';

export interface MediaFigures {
  calls: { operation: string; status: number; calls: number; authCalls: number }[];
  streaming: { megabytes: number; throughHarnessMs: number; bareGetObjectMs: number }[];
  runs: number;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/**
 * The internal media operations through the harness: the DynamoDB calls of each (the internal key
 * costs none), and the time to stream a 1 MB and a 4 MB photo next to a bare S3 GetObject of the
 * same object from this process, measured in the same run.
 */
export async function measureMedia(harness: HarnessInfo, runs: number): Promise<MediaFigures> {
  Object.assign(process.env, harness.env);
  const { addPhoto } = await import('#lib/media/photo-writes.ts');
  const { GetObjectCommand } = await import('@aws-sdk/client-s3');
  const { photoObjectKey, photosBucket, s3 } = await import('#lib/storage/photo-bucket.ts');
  const business = harness.credentials.businesses[0];
  if (!business) throw new Error('no demo business');
  const headers = { 'x-internal-api-key': harness.credentials.internal_api_key };
  const base = `${harness.baseUrl}/api/v1/internal/media`;
  const calls: MediaFigures['calls'] = [];
  const measure = async (operation: string, path: string, init: RequestInit = {}) => {
    const response = await fetch(`${base}${path}`, { ...init, headers: { ...headers, ...init.headers } });
    await response.arrayBuffer();
    calls.push({
      operation,
      status: response.status,
      calls: Number(response.headers.get('x-local-dynamodb-calls')),
      authCalls: Number(response.headers.get('x-local-dynamodb-auth-calls')),
    });
    return response;
  };

  const source = await addPhoto({
    businessId: business.id,
    bytes: png(16, 16),
    contentType: 'image/png',
    source: 'upload',
  });
  const gallery = (await (await fetch(`${base}/gallery?limit=1`, { headers })).json()) as {
    items: { asset_id: string }[];
  };
  await measure('listMediaBusinesses', '/businesses?limit=100');
  await measure('checkBusinessMembership', `/businesses/${business.id}/members/${crypto.randomUUID()}`);
  await measure('listGalleryPhotos', '/gallery?limit=100');
  await measure('getGalleryPhotoBytes', `/gallery/${gallery.items[0]?.asset_id}/bytes`);
  await measure('listBusinessPhotos', `/photos?business_id=${business.id}&limit=100`);
  await measure('getPhotoBytes', `/photos/${source.id}/bytes`);
  await measure('getPhotoUsages', `/photos/${source.id}/usages`);
  const form = new FormData();
  form.append('file', new Blob([png(64, 48)]), 'edited.png');
  form.append(
    'meta',
    JSON.stringify({
      business_id: business.id,
      source_asset_id: source.id,
      idempotency_key: crypto.randomUUID(),
    }),
  );
  await measure('importDerivativePhoto', '/photos/import-derivative', { method: 'POST', body: form });

  const streaming: MediaFigures['streaming'] = [];
  for (const megabytes of [1, 4]) {
    const photo = await addPhoto({
      businessId: business.id,
      bytes: randomBytes(megabytes * 1024 * 1024),
      contentType: 'image/jpeg',
      source: 'upload',
    });
    const harnessMs: number[] = [];
    const bareMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      let started = performance.now();
      await (await fetch(`${base}/photos/${photo.id}/bytes`, { headers })).arrayBuffer();
      harnessMs.push(performance.now() - started);
      started = performance.now();
      const object = await s3.send(
        new GetObjectCommand({ Bucket: photosBucket, Key: photoObjectKey(business.id, photo.id) }),
      );
      await object.Body?.transformToByteArray();
      bareMs.push(performance.now() - started);
    }
    streaming.push({ megabytes, throughHarnessMs: median(harnessMs), bareGetObjectMs: median(bareMs) });
  }
  return { calls, streaming, runs };
}
