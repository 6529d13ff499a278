import { png } from '../infra/local/demo-images.ts';
import type { HarnessInfo } from '../infra/local/harness-process.ts';

export interface MediaFigures {
  calls: { operation: string; status: number; calls: number; authCalls: number }[];
}

/**
 * The internal media operations through the harness: the DynamoDB calls of each (the internal key
 * costs none). The time of photo bytes is photo-delivery.ts's.
 */
export async function measureMedia(harness: HarnessInfo): Promise<MediaFigures> {
  Object.assign(process.env, harness.env);
  const { addPhoto } = await import('#lib/media/photo-writes.ts');
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

  return { calls };
}
